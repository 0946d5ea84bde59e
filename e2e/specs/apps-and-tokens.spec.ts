import { expect, test } from "@playwright/test";

// An admin creates an app, grants it a wildcard, mints a token for part of it,
// reads the token once, revokes it, and finds both in the audit log.
test("create an app, grant it endpoints, mint a token and revoke it", async ({ page, request }) => {
  const appName = `e2e dashboard ${Date.now()}`;
  const topic = `e2e-apps-${Date.now()}`;

  await page.goto("/apps");
  await page.getByRole("link", { name: "New app" }).first().click();
  await page.getByLabel("Name").fill(appName);
  await page.getByLabel("Description").fill("Shows prices on the hall screens");
  await page.getByRole("button", { name: "Create app" }).click();
  await expect(page.getByRole("heading", { level: 1, name: appName })).toBeVisible();
  const appId = (await page.getByTestId("app-id").textContent())!.trim();

  // A bad pattern is refused with the field named, and the typed value kept.
  await page.getByLabel("Endpoint pattern").fill(`/${topic}/a/{symbol}`);
  await page.getByRole("checkbox", { name: "Subscribe", exact: true }).check();
  await page.getByRole("button", { name: "Add grant" }).click();
  await expect(page.getByTestId("error-endpointPattern")).toBeVisible();
  await expect(page.getByLabel("Endpoint pattern")).toHaveValue(`/${topic}/a/{symbol}`);

  await page.getByLabel("Endpoint pattern").fill(`/${topic}/*`);
  await page.getByRole("checkbox", { name: "Subscribe", exact: true }).check();
  await page.getByRole("checkbox", { name: "Publish", exact: true }).check();
  await page.getByRole("button", { name: "Add grant" }).click();
  // No endpoint and no topic yet: the grant waits for a confirmation (grants-and-topics.spec.ts covers the warning itself).
  await page.getByRole("button", { name: "Grant anyway" }).click();
  await expect(page.getByRole("table", { name: "Grants" })).toContainText(`/${topic}/*`);

  // Mint a subscribe-only token from the grant.
  await page.getByRole("checkbox", { name: `Subscribe /${topic}/*` }).check();
  await page.getByLabel("Lifetime").selectOption({ label: "1 hour" });
  await page.getByRole("button", { name: "Mint token" }).click();
  const token = (await page.getByTestId("new-token").textContent())!.trim();
  const [header, payload] = token
    .split(".")
    .slice(0, 2)
    .map((part) => JSON.parse(Buffer.from(part!, "base64url").toString()));
  expect(header).toMatchObject({ alg: "ES256" });
  expect(payload).toMatchObject({ sub: appId, permissions: { sub: [`/${topic}/*`], pub: [], all: [] } });
  expect(payload.exp - payload.iat).toBe(3600);

  // The signing key is published in the JWKS.
  const jwks = await (await request.get("/.well-known/jwks.json")).json();
  expect(jwks.keys.map((k: { kid: string }) => k.kid)).toContain(header.kid);

  // Shown once: gone after a reload, listed by its jti.
  await page.reload();
  await expect(page.getByTestId("new-token")).toHaveCount(0);
  const row = page.getByTestId(`token-row-${payload.jti}`);
  await expect(row).toContainText(`/${topic}/*`);

  page.once("dialog", (dialog) => dialog.accept());
  await page.getByRole("button", { name: `Revoke token ${payload.jti}` }).click();
  await expect(row).toContainText("revoked");

  // Both the mint and the revocation are in the audit log, for this token.
  await page.goto(`/audit?entityId=${payload.jti}`);
  await expect(page.getByTestId("audit-entry").filter({ hasText: "token.revoke" })).toHaveCount(1);
  await expect(page.getByTestId("audit-entry").filter({ hasText: "token.mint" })).toHaveCount(1);
});
