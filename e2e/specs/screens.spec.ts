import path from "node:path";

import { expect, type Page, test } from "@playwright/test";

import { ADMIN_STATE, anonymous } from "../support/accounts";
import { expectVisibleFocus } from "../support/keyboard";
import { PORTAL_PAGES, resolveRoute, SCREENSHOT_DIR, screenshotName, seedCatalog } from "../support/pages";

// The main pages at desktop (1280×800) and phone (390×844) width: screenshots
// for a reviewer under e2e/artifacts/screenshots/{desktop,phone}/, and on the
// phone no sideways scrolling of the page (wide tables scroll inside their own
// box) and a header menu that works.
const VIEWPORTS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };
const mainPages = PORTAL_PAGES.filter((p) => p.main);

async function settle(page: Page) {
  await page.waitForLoadState("load");
  await page.waitForLoadState("networkidle", { timeout: 5_000 }).catch(() => undefined);
}

/** What overflows the phone's width: the page itself, or a table not inside a box that scrolls sideways. */
function overflow() {
  const problems: string[] = [];
  const root = document.scrollingElement!;
  if (root.scrollWidth > window.innerWidth) problems.push(`the page is ${root.scrollWidth}px wide in a ${window.innerWidth}px window`);
  for (const table of document.querySelectorAll("table")) {
    if (table.getBoundingClientRect().width <= window.innerWidth) continue;
    let box = table.parentElement;
    while (box && !/(auto|scroll)/.test(getComputedStyle(box).overflowX)) box = box.parentElement;
    if (!box || box === document.documentElement || box === document.body)
      problems.push(`table "${table.getAttribute("aria-label") ?? table.caption?.textContent ?? ""}" is wider than the window`);
  }
  return problems;
}

for (const [name, viewport] of Object.entries(VIEWPORTS)) {
  test.describe(`at ${name} width`, () => {
    test.use({ viewport });
    test.describe.configure({ timeout: 300_000 });

    test(`the main pages, signed in as admin: screenshots${name === "phone" ? ", no sideways scrolling" : ""}`, async ({ page }) => {
      const seeded = await seedCatalog(page, Date.now());
      for (const { route } of mainPages.filter((p) => p.visitors.includes("admin"))) {
        await test.step(route, async () => {
          await page.goto(await resolveRoute(page, route, seeded));
          await settle(page);
          await page.screenshot({ path: path.join(SCREENSHOT_DIR, name, `admin_${screenshotName(route)}.png`), fullPage: true });
          if (name === "phone") expect.soft(await page.evaluate(overflow), route).toEqual([]);
        });
      }
    });

    test.describe("nobody signed in", () => {
      test.use(anonymous);
      test(`landing and sign-in pages: screenshots${name === "phone" ? ", no sideways scrolling" : ""}`, async ({ page }) => {
        for (const { route } of mainPages.filter((p) => p.visitors.includes("anonymous"))) {
          await page.goto(route);
          await settle(page);
          await page.screenshot({ path: path.join(SCREENSHOT_DIR, name, `anonymous_${screenshotName(route)}.png`), fullPage: true });
          if (name === "phone") expect.soft(await page.evaluate(overflow), route).toEqual([]);
        }
      });
    });
  });
}

test.describe("on a phone", () => {
  test.use({ viewport: VIEWPORTS.phone, hasTouch: true, storageState: ADMIN_STATE });

  test("the header's links fold into a menu that opens, closes with Escape and navigates", async ({ page }) => {
    await page.goto("/");
    const nav = page.getByRole("navigation", { name: "Main" });
    const menu = nav.getByRole("button", { name: "Menu" });
    const apps = nav.getByRole("link", { name: "Apps" });
    await expect(apps).toBeHidden();
    await expect(menu).toHaveAttribute("aria-expanded", "false");

    // By keyboard: Enter opens it, Escape closes it and gives the focus back to the button.
    await menu.focus();
    await page.keyboard.press("Enter");
    await expect(menu).toHaveAttribute("aria-expanded", "true");
    await expect(apps).toBeVisible();
    await page.keyboard.press("Tab");
    await expect(nav.getByRole("link", { name: "Catalog" })).toBeFocused();
    await expectVisibleFocus(page);
    await page.keyboard.press("Escape");
    await expect(apps).toBeHidden();
    await expect(menu).toBeFocused();

    // By touch: a tap opens it, and following a link closes it on the new page.
    await menu.tap();
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, "phone", "admin_menu-open.png") });
    await apps.tap();
    await expect(page).toHaveURL(/\/apps$/);
    await expect(apps).toBeHidden();
    await expect(menu).toHaveAttribute("aria-expanded", "false");
  });
});
