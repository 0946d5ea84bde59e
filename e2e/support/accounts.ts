import { expect, type Page } from "@playwright/test";

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
