import { expect, test as setup } from "@playwright/test";

import { ADMIN, ADMIN_STATE } from "../support/accounts";

// The launcher printed a one-time link because the test stack starts empty.
setup("the first admin is created through the one-time setup link", async ({ page }) => {
  const setupUrl = process.env.SLUICE_SETUP_URL;
  expect(setupUrl, "SLUICE_SETUP_URL: the stack should print a setup link on a fresh install").toBeTruthy();

  // Without a session, signed-in pages ask to sign in first.
  await page.goto("/settings/api-keys");
  await expect(page).toHaveURL(/\/login\?next=%2Fsettings%2Fapi-keys/);

  await page.goto(setupUrl!);
  await expect(page.getByRole("heading", { name: "Create the first admin" })).toBeVisible();

  // The form names the field it refuses.
  await page.getByLabel("E-mail").fill(ADMIN.email);
  await page.getByLabel("Password", { exact: true }).fill("too short");
  await page.getByLabel("Repeat the password").fill("too short");
  await page.getByRole("button", { name: "Create the admin account" }).click();
  await expect(page.getByTestId("error-password")).toContainText("at least 12 characters");

  await page.getByLabel("Password", { exact: true }).fill(ADMIN.password);
  await page.getByLabel("Repeat the password").fill(ADMIN.password);
  await page.getByRole("button", { name: "Create the admin account" }).click();
  await expect(page.getByTestId("signed-in-as")).toContainText(ADMIN.email);
  await expect(page.getByTestId("signed-in-as")).toContainText("admin");

  // The link worked once.
  await page.goto(setupUrl!);
  await expect(page.getByRole("heading", { name: "This link cannot be used" })).toBeVisible();

  await page.context().storageState({ path: ADMIN_STATE });
});
