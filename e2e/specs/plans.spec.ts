import { connect, QuotaError, type SluiceClient } from "@sluice/sdk";
import { expect, test } from "@playwright/test";
import { WebSocket } from "ws";

import { gatewayWsUrl, invite } from "../support/accounts";
import { createTopic, produce } from "../support/kafka";

// Plans (issue 17 item 2): an editor gives an API a plan of one connection that
// approves requests at once; a viewer asks for access under it and is approved
// as the request is made, mints a token and connects with the SDK. A second
// connection of the same app is refused with 4291 (QuotaError) once the app's
// record with its limits has reached the gateway through the catalog topic: the
// story retries the second connection until then (a second or two).

test("an editor defines an auto-approve plan; a viewer asking under it is approved at once, connects, and a second connection is refused (4291), and the app's traffic page shows the delivery and the refusal", async ({
  page: admin,
  browser,
}) => {
  test.setTimeout(120_000);
  const stamp = Date.now();
  const topic = `e2e-plans-${stamp}`;
  const apiName = `E2E Plans ${stamp}`;
  const appName = `e2e plans app ${stamp}`;
  await createTopic(topic, 1);

  // The Kafka team publishes an API with one parameterised endpoint.
  await admin.goto("/apis/new");
  await admin.getByLabel("Name").fill(apiName);
  await admin.getByLabel("Version").fill("1.0.0");
  await admin.getByRole("button", { name: "Create API" }).click();
  await expect(admin.getByRole("heading", { level: 1 })).toContainText(apiName);
  const apiUrl = admin.url();
  await admin.getByRole("link", { name: "Add endpoint" }).click();
  await admin.getByLabel("Kafka topic").selectOption(topic);
  await admin.getByLabel("Key").fill("{vehicle}");
  await admin.getByRole("checkbox", { name: /^Subscribe/ }).check();
  await admin.getByLabel("Payload format").selectOption("json");
  await admin.getByRole("button", { name: "Create endpoint" }).click();
  await expect(admin.getByTestId("endpoint-path")).toHaveText(`/${topic}/{vehicle}`);

  const viewer = await invite(admin, browser, "viewer", "plans", stamp);
  const editor = await invite(admin, browser, "editor", "plans", stamp);

  // The editor defines the plan on the API page; a limit of 0 is refused by name.
  await editor.goto(apiUrl);
  await expect(editor.getByRole("heading", { name: "No plans" })).toBeVisible();
  await editor.getByText("Add a plan").click();
  const form = editor.getByRole("form", { name: "New plan" });
  await form.getByLabel("Name", { exact: true }).fill("starter");
  await form.getByRole("textbox", { name: /^Connections/ }).fill("0");
  await form.getByRole("checkbox", { name: /Approve access requests/ }).check();
  await form.getByRole("button", { name: "Create plan" }).click();
  await expect(form.getByText("must be at least 1")).toBeVisible();
  await form.getByRole("textbox", { name: /^Connections/ }).fill("1");
  await form.getByRole("button", { name: "Create plan" }).click();
  const planRow = editor.getByTestId("plan-row").filter({ hasText: "starter" });
  await expect(planRow).toContainText("1 connection");
  await expect(planRow).toContainText("automatic");

  // The viewer's app asks for the API under the plan, which shows its limits: approved at once.
  await viewer.goto("/apps/new");
  await viewer.getByLabel("Name").fill(appName);
  await viewer.getByRole("button", { name: "Create app" }).click();
  await expect(viewer.getByRole("heading", { level: 1, name: appName })).toBeVisible();
  const appUrl = viewer.url();
  await viewer.goto(apiUrl);
  await expect(viewer.getByTestId("plan-row")).toContainText("starter");
  await viewer.getByRole("link", { name: "Request access" }).click();
  await expect(viewer.getByRole("radio", { name: /starter/ })).toBeChecked();
  await expect(viewer.getByTestId("plan-limits")).toHaveText("1 connection");
  await viewer.getByLabel("Justification").fill("A wall screen; one connection is plenty");
  await viewer.getByRole("button", { name: "Send request" }).click();
  await expect(viewer).toHaveURL(`${appUrl}#access-requests-heading`);
  const requests = viewer.getByRole("table", { name: "Access requests of this app" });
  await expect(requests).toContainText("approved");
  await expect(requests).toContainText("automatically");
  await expect(requests).toContainText("plan starter");
  const grants = viewer.getByRole("table", { name: "Grants" });
  await expect(grants).toContainText(`/${topic}/*`);
  await expect(grants).toContainText("starter");
  await expect(grants).toContainText("1 connection");

  await viewer.getByRole("checkbox", { name: `Subscribe /${topic}/*` }).check();
  await viewer.getByLabel("Lifetime").selectOption({ label: "1 hour" });
  await viewer.getByRole("button", { name: "Mint token" }).click();
  const token = (await viewer.getByTestId("new-token").textContent())!.trim();

  // The first connection receives a live record.
  let first: SluiceClient | undefined;
  const extra: SluiceClient[] = [];
  try {
    first = await connect(gatewayWsUrl(), { token, WebSocket: WebSocket as never });
    const sub = first.subscribe(`/${topic}/truck-1`);
    await sub.ready;
    const next = sub[Symbol.asyncIterator]().next();
    await produce(topic, "truck-1", { speedKmh: 42, stamp });
    const received = await Promise.race([next, new Promise<null>((r) => setTimeout(() => r(null), 10_000))]);
    expect(received, "no record reached the SDK client within 10 s").not.toBeNull();

    // A second connection of the app goes over the plan: refused with 4291 once the gateway holds the app's limits.
    const deadline = Date.now() + 20_000;
    let refusal: unknown;
    while (Date.now() < deadline) {
      try {
        extra.push(await connect(gatewayWsUrl(), { token, WebSocket: WebSocket as never, reconnect: false }));
        await new Promise((r) => setTimeout(r, 250));
      } catch (err) {
        refusal = err;
        break;
      }
    }
    expect(refusal, "the second connection was never refused").toBeInstanceOf(QuotaError);
    expect((refusal as QuotaError).code).toBe(4291);
    // The first connection goes on.
    expect(first.state).toBe("connected");
  } finally {
    await Promise.all([first?.close(), ...extra.map((c) => c.close())]);
  }

  // The delivery and the refusal reach the app's traffic page: the gateway's
  // usage records (every 5 s), aggregated by the bridge into PostgreSQL.
  await expect(async () => {
    await viewer.goto(`${appUrl}/traffic`);
    await expect(viewer.getByTestId("usage-total-delivered")).not.toHaveText("0", { timeout: 1000 });
    // Refused connections and the error frames of the refusals, as a rate over the minute.
    expect(Number(await viewer.getByTestId("chart-refusals").getAttribute("data-total"))).toBeGreaterThan(0);
  }).toPass({ timeout: 45_000 });
});
