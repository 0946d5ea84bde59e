import { connect, RevokedError, type SluiceClient } from "@sluice/sdk";
import { expect, test } from "@playwright/test";
import { WebSocket } from "ws";

import { ADMIN, anonymous, gatewayWsUrl, signIn } from "../support/accounts";
import { createTopic, produce, readRecord } from "../support/kafka";

// The live path as a Kafka team and an app developer meet it (issue 5's story):
// sign in, publish a topic as an endpoint, hand an app a token, watch records
// arrive in the browser, publish from the page, and revoke a token that a
// separate SDK client is using. The 1-second bounds are the product's promise.
test.use(anonymous);

test("a record reaches the live console, a publish from the page reaches Kafka, revocation cuts an SDK client", async ({ page }) => {
  test.setTimeout(90_000);
  const stamp = Date.now();
  const topic = `e2e-live-${stamp}`;
  const apiName = `E2E Live ${stamp}`;
  const appName = `e2e live app ${stamp}`;
  await createTopic(topic, 3);

  await signIn(page, ADMIN.email, ADMIN.password);

  // An API with a parameterised endpoint that allows subscribe and publish.
  await page.goto("/apis/new");
  await page.getByLabel("Name").fill(apiName);
  await page.getByLabel("Version").fill("1.0.0");
  await page.getByRole("button", { name: "Create API" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toContainText(apiName);
  await page.getByRole("link", { name: "Add endpoint" }).click();
  await page.getByLabel("Kafka topic").selectOption(topic);
  await page.getByLabel("Key").fill("{vehicle}");
  await page.getByRole("checkbox", { name: /^Subscribe/ }).check();
  await page.getByRole("checkbox", { name: /^Publish/ }).check();
  await page.getByLabel("Payload format").selectOption("json");
  const schema = { type: "object", required: ["speed"], properties: { speed: { type: "number" } } };
  await page.getByLabel("JSON Schema (optional)").fill(JSON.stringify(schema));
  await page.getByRole("button", { name: "Create endpoint" }).click();
  await expect(page.getByTestId("endpoint-path")).toHaveText(`/${topic}/{vehicle}`);
  const endpointUrl = page.url();

  // An app with a grant and a token, for a separate SDK client.
  await page.goto("/apps/new");
  await page.getByLabel("Name").fill(appName);
  await page.getByRole("button", { name: "Create app" }).click();
  await expect(page.getByRole("heading", { level: 1, name: appName })).toBeVisible();
  const appUrl = page.url();
  await page.getByLabel("Endpoint pattern").fill(`/${topic}/*`);
  await page.getByRole("checkbox", { name: "Subscribe", exact: true }).check();
  await page.getByRole("button", { name: "Add grant" }).click();
  await expect(page.getByRole("table", { name: "Grants" })).toContainText(`/${topic}/*`);
  await page.getByRole("checkbox", { name: `Subscribe /${topic}/*` }).check();
  await page.getByLabel("Lifetime").selectOption({ label: "1 hour" });
  await page.getByRole("button", { name: "Mint token" }).click();
  const appToken = (await page.getByTestId("new-token").textContent())!.trim();
  const appTokenJti = JSON.parse(Buffer.from(appToken.split(".")[1]!, "base64url").toString()).jti as string;

  // The live console: Try it on key "truck-7".
  await page.goto(endpointUrl);
  const consoleBox = page.getByTestId("live-console");
  await consoleBox.getByLabel(/^Key/).fill("truck-7");
  await consoleBox.getByTestId("console-try").click();
  await expect(consoleBox.getByTestId("console-state")).toHaveAttribute("data-phase", "connected", { timeout: 15_000 });
  await expect(consoleBox.getByTestId("console-notice").filter({ hasText: `Live on /${topic}/truck-7` })).toBeVisible();

  // A record produced to Kafka appears on the page within a second.
  const produced = await produce(topic, "truck-7", { speed: 88.5, stamp });
  const sentAt = Date.now();
  const row = consoleBox.getByTestId("console-message").filter({ hasText: String(stamp) });
  await expect(row).toBeVisible({ timeout: 1_000 });
  const arrivalMs = Date.now() - sentAt;
  console.log(`live console: record visible ${arrivalMs} ms after Kafka acknowledged it`);
  await expect(row.getByTestId("console-message-position")).toHaveText(`p${produced.partition}:${produced.offset}`);
  await expect(row.getByTestId("console-message-key")).toHaveText("truck-7");
  await expect(row.getByTestId("console-message-payload")).toContainText('"speed": 88.5');
  await expect(consoleBox.getByTestId("console-total")).toHaveText("1");

  // Publishing: a payload that breaks the schema is refused before it is sent, naming the field…
  await consoleBox.getByLabel(/^JSON/).fill('{"speed": "fast"}');
  await consoleBox.getByTestId("console-publish").click();
  await expect(consoleBox.getByTestId("error-console-publish")).toContainText("payload/speed");
  // …a valid one is acknowledged with its Kafka position, and the test reads it back.
  await consoleBox.getByLabel(/^JSON/).fill(JSON.stringify({ speed: 42, from: "console", stamp }));
  await consoleBox.getByTestId("console-publish").click();
  const ack = consoleBox.getByTestId("console-publish-result");
  await expect(ack).toContainText(`Published to /${topic}/truck-7`);
  const [, partition, offset] = (await ack.textContent())!.match(/partition (\d+), offset (\d+)/)!;
  const record = await readRecord(topic, Number(partition), offset!);
  expect(record.key).toBe("truck-7");
  expect(JSON.parse(record.value)).toEqual({ speed: 42, from: "console", stamp });
  expect(record.headers["sluice-app"], "the console app's id travels in a header").toMatch(/^[0-9a-f-]{36}$/);
  // The console is subscribed to the same key: its own message arrives too.
  await expect(consoleBox.getByTestId("console-message").filter({ hasText: '"from": "console"' })).toBeVisible();

  // Pause stops delivery; resume continues right after the last message shown.
  await consoleBox.getByTestId("console-pause").click();
  await expect(consoleBox.getByTestId("console-resume")).toBeVisible();
  await produce(topic, "truck-7", { speed: 1, stamp, n: "while paused" });
  await page.waitForTimeout(500);
  await expect(consoleBox.getByTestId("console-message").filter({ hasText: "while paused" })).toHaveCount(0);
  await consoleBox.getByTestId("console-resume").click();
  await expect(consoleBox.getByTestId("console-message").filter({ hasText: "while paused" })).toHaveCount(1);
  await expect(consoleBox.getByTestId("console-total")).toHaveText("3");

  // Replay from offset 0 shows the key's whole history again; Clear empties the list.
  await consoleBox.getByTestId("console-clear").click();
  await expect(consoleBox.getByTestId("console-message")).toHaveCount(0);
  await consoleBox.getByLabel(/^Offset/).fill("0");
  await consoleBox.getByTestId("console-replay").click();
  await expect(consoleBox.getByTestId("console-message")).toHaveCount(3);

  // A separate SDK client on the app token; revoking that token in the portal disconnects it within a second.
  let client: SluiceClient | undefined;
  try {
    client = await connect(gatewayWsUrl(), { token: appToken, WebSocket: WebSocket as never });
    const sub = client.subscribe(`/${topic}/truck-7`);
    await sub.ready;
    const closed = new Promise<{ error?: unknown; at: number }>((resolve) =>
      client!.once("closed", ({ error }) => resolve({ error, at: Date.now() })),
    );
    await page.goto(appUrl);
    page.once("dialog", (dialog) => dialog.accept());
    const revokedAt = Date.now();
    await page.getByRole("button", { name: `Revoke token ${appTokenJti}` }).click();
    await expect(page.getByTestId(`token-row-${appTokenJti}`)).toContainText("revoked");
    const outcome = await Promise.race([closed, new Promise<null>((r) => setTimeout(() => r(null), 5_000))]);
    expect(outcome, "the SDK client was not disconnected within 5 s of the revocation").not.toBeNull();
    expect(outcome!.error).toBeInstanceOf(RevokedError);
    expect((outcome!.error as RevokedError).code).toBe(4009);
    const cutMs = Math.max(0, outcome!.at - revokedAt);
    console.log(`revocation: SDK client closed with 4009 ${cutMs} ms after the click on Revoke`);
    expect(cutMs, "revocation must reach the client within 1 s").toBeLessThanOrEqual(1_000);
  } finally {
    await client?.close();
  }
});
