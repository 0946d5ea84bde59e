import { type Browser, expect, type Page } from "@playwright/test";

/** Where the first admin's signed-in browser state is kept between projects. */
export const ADMIN_STATE = ".auth/admin.json";

/** The first admin, created by first-admin.setup.ts through the printed setup link. */
export const ADMIN = { email: "first.admin@e2e.sluice", password: "a long first-admin passphrase" };

export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto("/login");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("signed-in-as")).toContainText(email);
}

/** A fresh browser context with nobody signed in. */
export const anonymous = { storageState: { cookies: [], origins: [] } };

/**
 * Invites a user with `role` (e-mail `<role>-<story>-<stamp>@e2e.sluice`) from the
 * admin's page and returns their signed-in page in a fresh context.
 */
export async function invite(
  admin: Page,
  browser: Browser,
  role: "viewer" | "editor" | "admin",
  story: string,
  stamp: number,
): Promise<Page> {
  const email = `${role}-${story}-${stamp}@e2e.sluice`;
  await admin.goto("/settings/users");
  await admin.getByLabel("E-mail").fill(email);
  await admin.getByLabel("Role", { exact: true }).selectOption(role);
  await admin.getByRole("button", { name: "Invite" }).click();
  const inviteUrl = (await admin.getByTestId("invite-url").textContent())!.trim();
  const context = await browser.newContext(anonymous);
  const page = await context.newPage();
  await page.goto(inviteUrl);
  await page.getByLabel("Password", { exact: true }).fill(`the ${role}'s own passphrase`);
  await page.getByLabel("Repeat the password").fill(`the ${role}'s own passphrase`);
  await page.getByRole("button", { name: "Set password and sign in" }).click();
  await expect(page.getByTestId("signed-in-as")).toContainText(`${email} · ${role}`);
  return page;
}

/** The test stack gateway's WebSocket URL. */
export const gatewayWsUrl = () => `${(process.env.SLUICE_GATEWAY_URL ?? "http://127.0.0.1:8080").replace(/^http/, "ws")}/ws`;
