import { expect, test } from "@playwright/test";

import { anonymous } from "../support/accounts";

// Runs against the whole test stack, so the gateway and the bridge are
// expected to be up. Relative URLs resolve against the config's baseURL.

test.describe("portal landing page", () => {
  test.use(anonymous);

  test("names the product and reports a healthy stack", async ({ page }) => {
    await page.goto("/");

    await expect(page.getByRole("heading", { level: 1, name: /Sluice/ })).toBeVisible();

    // The status is rendered once per request on the server, so there is
    // nothing to wait for after load; \b keeps "up" from matching inside
    // other words.
    for (const testId of ["status-gateway", "status-bridge"]) {
      const item = page.getByTestId(testId);
      await expect(item, `${testId} should be up`).toContainText(/\bup\b/);
      await expect(item).not.toContainText(/\bdown\b/);
    }
  });

  test("health endpoint answers ok and is not cached", async ({ request }) => {
    const res = await request.get("/api/healthz");

    expect(res.status()).toBe(200);
    expect(res.headers()["cache-control"]).toContain("no-store");
    expect(await res.json()).toMatchObject({ status: "ok", service: "portal" });
  });

  test("pages carry the security headers", async ({ request }) => {
    const res = await request.get("/");
    const headers = res.headers();

    expect(res.status()).toBe(200);
    expect(headers["x-content-type-options"]).toBe("nosniff");
    expect(headers["x-frame-options"]).toBe("DENY");
    expect(headers["referrer-policy"]).toBeTruthy();
    expect(headers["x-powered-by"]).toBeUndefined();
  });
});
