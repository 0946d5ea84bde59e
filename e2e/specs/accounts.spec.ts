import { expect, test } from "@playwright/test";

import { ADMIN, anonymous } from "../support/accounts";

test.describe("signing in", () => {
  test.use(anonymous);

  test("a wrong password is refused without saying which part was wrong", async ({ page }) => {
    await page.goto("/login");
    await page.getByLabel("E-mail").fill(ADMIN.email);
    await page.getByLabel("Password").fill("not the password at all");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("form-message")).toHaveText("The e-mail or password is wrong.");
  });

  test("signing in returns to the page asked for, and signing out ends the session", async ({ page }) => {
    await page.goto("/settings/api-keys");
    await expect(page).toHaveURL(/\/login\?next=/);
    await page.getByLabel("E-mail").fill(ADMIN.email);
    await page.getByLabel("Password").fill(ADMIN.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/settings\/api-keys$/);
    const cookie = (await page.context().cookies()).find((c) => c.name === "sluice_session");
    expect(cookie?.httpOnly).toBe(true);
    expect(cookie?.sameSite).toBe("Lax");

    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/login$/);
    await page.goto("/settings/api-keys");
    await expect(page).toHaveURL(/\/login\?next=/);
  });
});

test.describe("as the admin", () => {
  test("a personal API key is shown once and works against /api/v1", async ({ page, request }) => {
    await page.goto("/settings/api-keys");
    await page.getByLabel("Name").fill("e2e script");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = (await page.getByTestId("new-api-key").textContent())!.trim();
    expect(key).toMatch(/^slk_/);

    const me = await request.get("/api/v1/me", { headers: { authorization: `Bearer ${key}` } });
    expect(me.status()).toBe(200);
    expect(await me.json()).toMatchObject({ email: ADMIN.email, role: "admin", authenticatedWith: "api-key" });

    await page.reload();
    await expect(page.getByTestId("new-api-key")).toHaveCount(0);
    // Listed by name and by its first characters only.
    const row = page.getByRole("row").filter({ hasText: key.slice(0, 10) });
    await expect(row).toContainText("e2e script");
    await expect(row).not.toContainText(key);
  });

  test("an invited viewer sets a password and sees only what a viewer may", async ({ page, browser }) => {
    const email = `viewer-${Date.now()}@e2e.sluice`;
    await page.goto("/settings/users");
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Role", { exact: true }).selectOption("viewer");
    await page.getByRole("button", { name: "Invite" }).click();
    const inviteUrl = (await page.getByTestId("invite-url").textContent())!.trim();
    expect(inviteUrl).toContain("/setup/");

    const viewerContext = await browser.newContext(anonymous);
    const viewer = await viewerContext.newPage();
    await viewer.goto(inviteUrl);
    await expect(viewer.getByRole("heading", { name: "Welcome to Sluice" })).toBeVisible();
    await viewer.getByLabel("Password", { exact: true }).fill("the viewer's own passphrase");
    await viewer.getByLabel("Repeat the password").fill("the viewer's own passphrase");
    await viewer.getByRole("button", { name: "Set password and sign in" }).click();
    await expect(viewer.getByTestId("signed-in-as")).toContainText(`${email} · viewer`);

    await expect(viewer.getByRole("link", { name: "Audit log" })).toHaveCount(0);
    const forbidden = await viewer.goto("/settings/users");
    expect(forbidden?.status()).toBe(403);
    await expect(viewer.getByRole("heading", { name: "Not allowed" })).toBeVisible();
    await viewerContext.close();
  });
});
