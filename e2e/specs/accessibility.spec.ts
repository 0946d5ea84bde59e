import { type Browser, expect, type Page, test } from "@playwright/test";

import { ADMIN_STATE, anonymous, invite } from "../support/accounts";
import { checkAccessibility } from "../support/axe";
import { appRoutes, PORTAL_PAGES, resolveRoute, STATUS_PAGES, seedCatalog, type Visitor } from "../support/pages";

// axe-core on every page of the portal, as each kind of visitor sees it: no
// serious or critical violation (issue 20). The page list lives in
// e2e/support/pages.ts; the first test keeps it in step with apps/portal/app.

test("every page of the portal is in the list the checks visit", () => {
  const listed = PORTAL_PAGES.map((p) => p.route).sort();
  expect(listed, "add new pages to PORTAL_PAGES in e2e/support/pages.ts (and remove deleted ones)").toEqual(appRoutes());
});

/** Visits each path and checks it with axe; every page is reported before the test fails. */
async function checkPages(page: Page, visitor: Visitor, paths: { label: string; path: () => Promise<string> }[]) {
  for (const { label, path } of paths) {
    await test.step(`${visitor}: ${label}`, async () => {
      const url = await path();
      await page.goto(url);
      await settle(page);
      const report = await checkAccessibility(page);
      for (const line of report.other) test.info().annotations.push({ type: `axe, ${visitor} ${url}`, description: line });
      expect.soft(report.failing, `serious or critical axe violations on ${url} as ${visitor}`).toEqual([]);
    });
  }
}

/** Waits for client-rendered parts (the AsyncAPI docs, the live console) before axe looks. */
async function settle(page: Page) {
  await page.waitForLoadState("load");
  await page.locator("main").waitFor();
  // Client components render after hydration; fonts and the docs bundle load lazily.
  await page.waitForLoadState("networkidle", { timeout: 5_000 }).catch(() => undefined);
}

function pathsFor(page: Page, visitor: Visitor, given: Record<string, string> = {}) {
  return [
    ...PORTAL_PAGES.filter((p) => p.visitors.includes(visitor) && p.route !== "/setup/[token]").map((p) => ({
      label: p.route,
      path: () => resolveRoute(page, p.route, given),
    })),
    ...STATUS_PAGES.filter((s) => s.visitors.includes(visitor)).map((s) => ({ label: s.name, path: async () => s.path })),
  ];
}

/** An app of the visitor's own, so /apps/[appId] has something to show. */
async function createApp(page: Page, name: string) {
  await page.goto("/apps/new");
  await page.getByLabel("Name").fill(name);
  await page.getByRole("button", { name: "Create app" }).click();
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
}

/** An unused invitation link: the setup page with its form. */
async function invitationUrl(admin: Page, stamp: number) {
  await admin.goto("/settings/users");
  await admin.getByLabel("E-mail").fill(`invited-a11y-${stamp}@e2e.sluice`);
  await admin.getByRole("button", { name: "Invite" }).click();
  return (await admin.getByTestId("invite-url").textContent())!.trim();
}

async function signedOutPage(browser: Browser) {
  return (await browser.newContext(anonymous)).newPage();
}

test.describe("axe: no serious or critical violations", () => {
  test.describe.configure({ timeout: 300_000 });

  // The test stack's catalog starts empty: give the pages something to show.
  let seeded: { apiId: string; endpointId: string; appId: string };
  test.beforeAll(async ({ browser }) => {
    const context = await browser.newContext({ storageState: ADMIN_STATE });
    seeded = await seedCatalog(await context.newPage(), Date.now());
    await context.close();
  });

  test("on the pages nobody signed in sees", async ({ page: admin, browser }) => {
    const setupUrl = await invitationUrl(admin, Date.now());
    const page = await signedOutPage(browser);
    await checkPages(page, "anonymous", [
      ...pathsFor(page, "anonymous"),
      { label: "/setup/[token] (an unused invitation)", path: async () => setupUrl },
    ]);
  });

  test("on every page an admin sees", async ({ page }) => {
    await checkPages(page, "admin", pathsFor(page, "admin", seeded));
  });

  test("on a form showing its field errors", async ({ page }) => {
    await page.goto("/apps/new");
    await page.getByRole("button", { name: "Create app" }).click();
    await expect(page.getByTestId("error-name")).toBeVisible();
    expect((await checkAccessibility(page)).failing).toEqual([]);
  });

  test("on every page a viewer sees", async ({ page: admin, browser }) => {
    const page = await invite(admin, browser, "viewer", "a11y", Date.now());
    await createApp(page, `a11y viewer app ${Date.now()}`);
    // The viewer's own app, and the seeded API (the catalog is everyone's).
    await checkPages(page, "viewer", pathsFor(page, "viewer", { apiId: seeded.apiId, endpointId: seeded.endpointId }));
  });
});
