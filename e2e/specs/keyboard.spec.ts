import { expect, test } from "@playwright/test";

import { ADMIN, ADMIN_STATE, anonymous } from "../support/accounts";
import { checkAccessibility } from "../support/axe";
import { expectVisibleFocus, tabTo } from "../support/keyboard";
import { seedCatalog } from "../support/pages";

// The main flows with the keyboard alone (Tab, Shift+Tab, Enter, Space, Escape;
// no mouse), every focus stop visibly marked: sign in, open an API and one of
// its endpoints, create an app, grant it, mint a token, copy it, revoke it.
test.use({ ...anonymous, permissions: ["clipboard-read", "clipboard-write"] });

test("sign in, browse, create an app and mint, copy and revoke a token with the keyboard only", async ({ page, browser }) => {
  test.setTimeout(120_000);
  const stamp = Date.now();
  // Something to browse: an API with an endpoint (made with the forms, as setup, not as the flow under test).
  const seeding = await browser.newContext({ storageState: ADMIN_STATE });
  const { apiId, endpointId } = await seedCatalog(await seeding.newPage(), stamp);
  await seeding.close();
  const topic = `e2e-screens-${stamp}`;

  // The first Tab stop skips the header; Enter moves the focus into the main content.
  await page.goto("/login");
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to content" });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await expectVisibleFocus(page);
  await page.keyboard.press("Enter");
  await expect(page.locator("main")).toBeFocused();

  await tabTo(page, page.getByLabel("E-mail"));
  await page.keyboard.type(ADMIN.email);
  await page.keyboard.press("Tab");
  await expect(page.getByLabel("Password")).toBeFocused();
  await page.keyboard.type(ADMIN.password);
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("signed-in-as")).toContainText(ADMIN.email);

  // Catalog → the API → its endpoint.
  await tabTo(page, page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Catalog" }));
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { level: 1, name: "API catalog" })).toBeVisible();
  await tabTo(page, page.getByRole("link", { name: `Screens ${stamp}` }));
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/apis/${apiId}$`));
  await tabTo(page, page.locator(`main a[href="/apis/${apiId}/endpoints/${endpointId}"]`).first());
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("endpoint-path")).toHaveText(`/${topic}/{vehicle}`);

  // Back up the page with Shift+Tab to the header's Apps link; a new app.
  await tabTo(page, page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Apps" }), { backwards: true });
  await page.keyboard.press("Enter");
  await tabTo(page, page.getByRole("link", { name: "New app" }).first());
  await page.keyboard.press("Enter");
  await tabTo(page, page.getByLabel("Name"));
  const appName = `keyboard app ${stamp}`;
  await page.keyboard.type(appName);
  await tabTo(page, page.getByRole("button", { name: "Create app" }));
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { level: 1, name: appName })).toBeVisible();

  // A grant: type the pattern, Space ticks Publish (Subscribe is ticked already), Enter submits.
  await tabTo(page, page.getByLabel("Endpoint pattern"));
  await page.keyboard.type(`/${topic}/*`);
  await expect(page.getByRole("checkbox", { name: "Subscribe", exact: true })).toBeChecked();
  await tabTo(page, page.getByRole("checkbox", { name: "Publish", exact: true }));
  await page.keyboard.press("Space");
  await expect(page.getByRole("checkbox", { name: "Publish", exact: true })).toBeChecked();
  await tabTo(page, page.getByRole("button", { name: "Add grant" }));
  await page.keyboard.press("Enter");
  await expect(page.getByRole("table", { name: "Grants" })).toContainText(`/${topic}/*`);

  // Mint a token; the one-time secret and its copy button are reachable.
  await tabTo(page, page.getByRole("checkbox", { name: `Subscribe /${topic}/*` }));
  await page.keyboard.press("Space");
  await tabTo(page, page.getByRole("button", { name: "Mint token" }));
  await page.keyboard.press("Enter");
  const token = page.getByTestId("new-token");
  await expect(token).toBeVisible();
  const secret = (await token.textContent())!.trim();
  // The page as it shows a secret passes the same axe check as every page.
  expect((await checkAccessibility(page)).failing).toEqual([]);
  await tabTo(page, page.getByRole("button", { name: "Copy" }), { backwards: true });
  await page.keyboard.press("Enter");
  await expect(page.getByRole("button", { name: "Copied" })).toBeFocused();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  const jti = JSON.parse(Buffer.from(secret.split(".")[1]!, "base64url").toString()).jti as string;

  // Revoke it: Enter on the button, and the confirmation is accepted.
  page.once("dialog", (dialog) => dialog.accept());
  await tabTo(page, page.getByRole("button", { name: `Revoke token ${jti}` }));
  await page.keyboard.press("Enter");
  await expect(page.getByTestId(`token-row-${jti}`)).toContainText("revoked");
});
