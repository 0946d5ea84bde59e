import { expect, test } from "@playwright/test";

import { anonymous } from "../support/accounts";
import { createTopic } from "../support/kafka";

// Issue 20, items 4, 5 and 7 as a user meets them: the management API's reference
// rendered in the portal without the internet, a 404 with a way back, the password
// rules on the form that sets a password, form errors that take the focus, and a
// subscribe-only endpoint that does not offer publishing.

test("the API reference renders the portal's OpenAPI operations without a request leaving the portal", async ({ page, baseURL }) => {
  const portalOrigin = new URL(baseURL!).origin;
  const elsewhere: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.protocol.startsWith("http") && url.origin !== portalOrigin) elsewhere.push(request.url());
  });
  // Blocked too, so a CDN fallback cannot make the page look right by accident.
  await page.route(
    (url) => url.protocol.startsWith("http") && url.origin !== portalOrigin,
    (route) => route.abort(),
  );

  await page.goto("/");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API reference" }).click();
  await expect(page).toHaveURL(/\/api-reference$/);
  await expect(page.getByRole("heading", { level: 1, name: "Management API reference" })).toBeVisible();

  // Operations of the served document, by their summaries.
  const reference = page.getByTestId("api-reference");
  const served = (await (await page.request.get("/api/v1/openapi.json")).json()) as {
    paths: Record<string, Record<string, { summary: string }>>;
  };
  expect(served.paths["/me"]?.get?.summary).toBe("Who the credentials belong to");
  await expect(reference.getByText("Who the credentials belong to").first()).toBeVisible({ timeout: 20_000 });
  await expect(reference.getByText("List your personal API keys").first()).toBeAttached();

  // The first call names this portal and the header the API reads.
  await expect(page.getByTestId("first-call-command")).toHaveText(
    `curl -H "Authorization: Bearer slk_YOUR_KEY" ${process.env.SLUICE_PORTAL_PUBLIC_URL ?? baseURL}/api/v1/me`,
  );
  await page.waitForLoadState("networkidle");
  expect(elsewhere, "requests that left the portal's origin").toEqual([]);

  // Settings → API keys links to it and shows the same first call.
  await page.goto("/settings/api-keys");
  await expect(page.getByTestId("first-call-command")).toContainText("Authorization: Bearer slk_YOUR_KEY");
  await page.getByRole("link", { name: "API reference" }).last().click();
  await expect(page).toHaveURL(/\/api-reference$/);
});

test("an unknown page is a branded 404 with a way back, and the portal has a favicon", async ({ page, request }) => {
  const response = await page.goto("/no-such-page-here");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1, name: "This page does not exist" })).toBeVisible();
  await page.getByRole("link", { name: "Back to the start page" }).click();
  await expect(page).toHaveURL(/\/$/);

  const icon = await page.locator('link[rel="icon"]').first().getAttribute("href");
  expect(icon).toMatch(/icon/);
  const served = await request.get(icon!);
  expect(served.status()).toBe(200);
  expect(served.headers()["content-type"]).toContain("image/svg+xml");
});

test("the invitation form shows the password rules, checks them as the server does and focuses the field", async ({ page, browser }) => {
  // The first-admin link is used by first-admin.setup.ts; an invitation sets a password with the same form.
  const email = `rules-${Date.now()}@e2e.sluice`;
  await page.goto("/settings/users");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Role", { exact: true }).selectOption("viewer");
  await page.getByRole("button", { name: "Invite" }).click();
  const inviteUrl = (await page.getByTestId("invite-url").textContent())!.trim();

  const invited = await (await browser.newContext(anonymous)).newPage();
  await invited.goto(inviteUrl);
  const rules = invited.getByTestId("password-rules");
  await expect(rules).toContainText("At least 12 characters");
  const atLeast = rules.locator("[data-met]").first();
  await expect(atLeast).toHaveAttribute("data-met", "false");

  const password = invited.getByLabel("Password", { exact: true });
  await password.fill("short one");
  await expect(atLeast).toHaveAttribute("data-met", "false");
  await invited.getByLabel("Repeat the password").fill("short one");
  await invited.getByRole("button", { name: "Set password and sign in" }).click();
  // The server's words (lib/validation/password-rules), next to the field, which has the focus.
  await expect(invited.getByTestId("error-password")).toHaveText("must be at least 12 characters");
  await expect(password).toBeFocused();
  await expect(password).toHaveAttribute("aria-invalid", "true");

  await password.fill("a long enough passphrase");
  await expect(atLeast).toHaveAttribute("data-met", "true");
  await invited.getByLabel("Repeat the password").fill("a long enough passphrase");
  await invited.getByRole("button", { name: "Set password and sign in" }).click();
  await expect(invited.getByTestId("signed-in-as")).toContainText(email);
  await invited.context().close();
});

test("a refused form focuses the field it names, next to its message; versions are MAJOR.MINOR.PATCH", async ({ page }) => {
  await page.goto("/apis/new");
  await page.getByLabel("Name").fill(`E2E Polish ${Date.now()}`);
  await page.getByLabel("Version").fill("one");
  await page.getByRole("button", { name: "Create API" }).click();
  await expect(page.getByTestId("error-version")).toContainText("MAJOR.MINOR.PATCH");
  await expect(page.getByLabel("Version")).toBeFocused();
  await expect(page.getByLabel("Version")).toBeInViewport();
});

test("a subscribe-only endpoint offers no publishing on its page", async ({ page }) => {
  const stamp = Date.now();
  const topic = `e2e-subonly-${stamp}`;
  await createTopic(topic, 1);
  await page.goto("/apis/new");
  await page.getByLabel("Name").fill(`E2E Subscribe only ${stamp}`);
  await page.getByLabel("Version").fill("1.0.0");
  await page.getByRole("button", { name: "Create API" }).click();
  await page.getByRole("link", { name: "Add endpoint" }).click();
  await page.getByLabel("Kafka topic").selectOption(topic);
  await page.getByLabel("Key").fill("{vehicle}");
  await page.getByRole("checkbox", { name: /^Subscribe/ }).check();
  await page.getByRole("checkbox", { name: /^Publish/ }).uncheck();
  await page.getByLabel("Payload format").selectOption("json");
  await page.getByRole("button", { name: "Create endpoint" }).click();
  await expect(page.getByTestId("endpoint-path")).toHaveText(`/${topic}/{vehicle}`);

  await expect(page.getByTestId("endpoint-subscribe-only")).toBeVisible();
  await expect(page.getByTestId("live-console")).toContainText("subscribe-only");
  await expect(page.getByTestId("console-publish")).toHaveCount(0);
  const clientCode = page.getByTestId("client-code");
  await expect(clientCode).toContainText(`Subscribe to /${topic}/{vehicle} from your code`);
  await expect(clientCode).not.toContainText("publish on");
  await expect(page.getByText("the gateway accepts any")).toHaveCount(0);
});

test("Revoke all tokens appears only while the app has a token that works", async ({ page }) => {
  const stamp = Date.now();
  await page.goto("/apps");
  await page.getByRole("link", { name: "New app" }).first().click();
  await page.getByLabel("Name").fill(`e2e revoke-all ${stamp}`);
  await page.getByRole("button", { name: "Create app" }).click();
  const revokeAll = page.getByRole("button", { name: "Revoke all tokens" });
  await expect(page.getByTestId("app-id")).toBeVisible();
  await expect(revokeAll).toHaveCount(0);

  await page.getByLabel("Endpoint pattern").fill(`/e2e-revoke-all-${stamp}/*`);
  await page.getByRole("checkbox", { name: "Subscribe", exact: true }).check();
  await page.getByRole("button", { name: "Add grant" }).click();
  // No such topic: the form warns before saving (grants-and-topics.spec.ts).
  await page.getByRole("button", { name: "Grant anyway" }).click();
  await page.getByRole("checkbox", { name: `Subscribe /e2e-revoke-all-${stamp}/*` }).check();
  await page.getByRole("button", { name: "Mint token" }).click();
  await expect(page.getByTestId("new-token")).toBeVisible();
  await page.reload();
  await expect(revokeAll).toBeVisible();

  page.once("dialog", (dialog) => dialog.accept());
  await revokeAll.click();
  await expect(page.getByText("revoked", { exact: true }).first()).toBeVisible();
  await page.reload();
  await expect(revokeAll).toHaveCount(0);
});
