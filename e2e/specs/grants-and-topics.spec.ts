import { connect, type SluiceClient } from "@sluice/sdk";
import { expect, type Page, test } from "@playwright/test";
import { WebSocket } from "ws";

import { gatewayWsUrl } from "../support/accounts";
import { createTopic, produce } from "../support/kafka";

// Issue 20 items 2 and 3: granting from the catalog, the grant form's warning
// before a grant that reaches nothing is saved, and a topic created from the
// endpoint form in local mode, defined as an endpoint and watched live.

async function newApi(page: Page, name: string): Promise<string> {
  await page.goto("/apis/new");
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Version").fill("1.0.0");
  await page.getByRole("button", { name: "Create API" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toContainText(name);
  return page.url();
}

async function newApp(page: Page, name: string): Promise<string> {
  await page.goto("/apps/new");
  await page.getByLabel("Name").fill(name);
  await page.getByRole("button", { name: "Create app" }).click();
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
  return page.url();
}

test("grant an endpoint to an app from its page, then mint a token for the app that receives its records", async ({ page }) => {
  test.setTimeout(60_000);
  const stamp = Date.now();
  const topic = `e2e-grant-${stamp}`;
  const appName = `e2e granted app ${stamp}`;
  await createTopic(topic, 1);
  const appUrl = await newApp(page, appName);

  await newApi(page, `E2E Grants ${stamp}`);
  await page.getByRole("link", { name: "Add endpoint" }).click();
  await page.getByLabel("Kafka topic").selectOption(topic);
  await page.getByLabel("Key").fill("{symbol}");
  await page.getByRole("button", { name: "Create endpoint" }).click();
  await expect(page.getByTestId("endpoint-path")).toHaveText(`/${topic}/{symbol}`);

  await page.getByRole("button", { name: "Grant to an app…" }).click();
  const dialog = page.getByRole("dialog", { name: `Grant /${topic}/{symbol} to an app` });
  await expect(dialog).toBeVisible();
  // Subscribe-only endpoint: publish is not offered.
  await expect(dialog.getByRole("checkbox", { name: "Publish" })).toHaveCount(0);
  await dialog.getByLabel("App", { exact: true }).selectOption({ label: appName });
  await dialog.getByRole("checkbox", { name: "Subscribe" }).check();
  await dialog.getByRole("button", { name: "Grant", exact: true }).click();
  await expect(dialog.getByTestId("form-message")).toHaveText(`Granted /${topic}/* (subscribe).`);
  await dialog.getByRole("link", { name: "Open the app to mint a token" }).click();
  await expect(page).toHaveURL(appUrl);
  await expect(page.getByRole("table", { name: "Grants" })).toContainText(`/${topic}/*`);

  await page.getByRole("checkbox", { name: `Subscribe /${topic}/*` }).check();
  await page.getByLabel("Lifetime").selectOption({ label: "1 hour" });
  await page.getByRole("button", { name: "Mint token" }).click();
  const token = (await page.getByTestId("new-token").textContent())!.trim();

  let client: SluiceClient | undefined;
  try {
    client = await connect(gatewayWsUrl(), { token, WebSocket: WebSocket as never });
    const sub = client.subscribe(`/${topic}/ACME`);
    await sub.ready;
    const next = sub[Symbol.asyncIterator]().next();
    await produce(topic, "ACME", { price: 12.5, stamp });
    const received = await Promise.race([next, new Promise<null>((r) => setTimeout(() => r(null), 10_000))]);
    expect(received, "no record reached the SDK client within 10 s").not.toBeNull();
    expect((received as IteratorResult<{ data: unknown }>).value.data).toEqual({ price: 12.5, stamp });
  } finally {
    await client?.close();
  }
});

test("the grant form offers the catalog's paths and warns before saving a grant that matches nothing", async ({ page }) => {
  const stamp = Date.now();
  await newApp(page, `e2e warned app ${stamp}`);
  // The demo API's endpoints are choices of the field's list.
  expect(await page.locator("#grant-endpoint-choices option").count()).toBeGreaterThan(0);

  const nowhere = `/e2e-nowhere-${stamp}/x`;
  await page.getByLabel("Endpoint pattern").fill(nowhere);
  await page.getByRole("button", { name: "Add grant" }).click();
  const warnings = page.getByTestId("grant-warnings");
  await expect(warnings).toContainText(`${nowhere} matches no endpoint of the catalog`);
  await expect(warnings).toContainText(`Kafka has no topic "e2e-nowhere-${stamp}"`);
  await expect(page.getByRole("table", { name: "Grants" }), "a grant was saved before it was confirmed").toHaveCount(0);
  await expect(page.getByLabel("Endpoint pattern")).toHaveValue(nowhere);

  await page.getByRole("button", { name: "Grant anyway" }).click();
  await expect(page.getByRole("table", { name: "Grants" })).toContainText(nowhere);
  await expect(page.getByTestId("grant-warnings")).toHaveCount(0);
});

test("in local mode an editor creates a topic from the endpoint form, defines an endpoint on it and watches a record arrive live", async ({
  page,
}) => {
  test.setTimeout(60_000);
  const stamp = Date.now();
  const topic = `e2e-made-${stamp}`;
  await newApi(page, `E2E Topics ${stamp}`);
  await page.getByRole("link", { name: "Add endpoint" }).click();

  await page.getByText("Create a Kafka topic…").click();
  const create = page.getByRole("form", { name: "Create a topic" });
  await create.getByLabel("Topic name").fill("__nope");
  await create.getByRole("button", { name: "Create topic" }).click();
  await expect(create.getByTestId("error-topicName")).toContainText("may not start with __");
  await create.getByLabel("Topic name").fill(topic);
  await create.getByLabel("Partitions").fill("2");
  await create.getByRole("button", { name: "Create topic" }).click();
  await expect(create.getByTestId("form-message")).toContainText(`Created the topic ${topic} with 2 partitions`);
  await expect(page.getByLabel("Kafka topic")).toHaveValue(topic);

  await page.getByLabel("Key").fill("{id}");
  await page.getByRole("button", { name: "Create endpoint" }).click();
  await expect(page.getByTestId("endpoint-path")).toHaveText(`/${topic}/{id}`);
  await expect(page.getByTestId("endpoint-partitions")).toHaveText("2");

  const consoleBox = page.getByTestId("live-console");
  await consoleBox.getByLabel(/^Key/).fill("k1");
  await consoleBox.getByTestId("console-try").click();
  await expect(consoleBox.getByTestId("console-state")).toHaveAttribute("data-phase", "connected", { timeout: 15_000 });
  await produce(topic, "k1", { made: "here", stamp });
  await expect(consoleBox.getByTestId("console-message").filter({ hasText: String(stamp) })).toBeVisible({ timeout: 5_000 });

  await page.goto(`/audit?entityId=${topic}`);
  await expect(page.getByTestId("audit-entry").filter({ hasText: "topic.create" })).toHaveCount(1);
});
