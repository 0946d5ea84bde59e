import { connect, type SluiceClient } from "@sluice/sdk";
import { expect, test } from "@playwright/test";
import { WebSocket } from "ws";

import { gatewayWsUrl, invite } from "../support/accounts";
import { createTopic, produce } from "../support/kafka";

// Self-service access (issue 17): a viewer asks for access to an endpoint for
// their own app, an editor approves it in the inbox, and the viewer mints a
// token and receives a live record through the gateway with the SDK. A second
// request is rejected and the viewer reads the reason on the app page. The
// admin (the first-admin project's signed-in state) plays the Kafka team that
// publishes the API, as the demo API is not made in the test profile.

test("a viewer requests access, an editor approves, the viewer mints a token and connects; a rejection shows its reason", async ({
  page: admin,
  browser,
}) => {
  test.setTimeout(120_000);
  const stamp = Date.now();
  const topic = `e2e-access-${stamp}`;
  const apiName = `E2E Access ${stamp}`;
  const appName = `e2e access app ${stamp}`;
  await createTopic(topic, 1);

  // The Kafka team publishes an API with one parameterised endpoint.
  await admin.goto("/apis/new");
  await admin.getByLabel("Name").fill(apiName);
  await admin.getByLabel("Version").fill("1.0.0");
  await admin.getByRole("button", { name: "Create API" }).click();
  await expect(admin.getByRole("heading", { level: 1 })).toContainText(apiName);
  await admin.getByRole("link", { name: "Add endpoint" }).click();
  await admin.getByLabel("Kafka topic").selectOption(topic);
  await admin.getByLabel("Key").fill("{vehicle}");
  await admin.getByRole("checkbox", { name: /^Subscribe/ }).check();
  await admin.getByLabel("Payload format").selectOption("json");
  await admin.getByRole("button", { name: "Create endpoint" }).click();
  await expect(admin.getByTestId("endpoint-path")).toHaveText(`/${topic}/{vehicle}`);
  const endpointUrl = admin.url();

  const viewer = await invite(admin, browser, "viewer", "ar", stamp);
  const editor = await invite(admin, browser, "editor", "ar", stamp);

  // The viewer creates an app: no grants yet, so nothing to mint.
  await viewer.goto("/apps/new");
  await viewer.getByLabel("Name").fill(appName);
  await viewer.getByRole("button", { name: "Create app" }).click();
  await expect(viewer.getByRole("heading", { level: 1, name: appName })).toBeVisible();
  const appUrl = viewer.url();
  await expect(viewer.getByRole("heading", { name: "No grants yet" })).toBeVisible();

  // From the endpoint page: the endpoint is preselected; a missing justification is refused by name.
  await viewer.goto(endpointUrl);
  await viewer.getByRole("link", { name: "Request access" }).click();
  await expect(viewer.getByRole("heading", { level: 1 })).toContainText(`Request access to ${apiName}`);
  await expect(viewer.getByRole("checkbox", { name: new RegExp(`/${topic}/\\{vehicle\\}`) })).toBeChecked();
  await viewer.getByRole("button", { name: "Send request" }).click();
  await expect(viewer.getByTestId("error-justification")).toBeVisible();
  await viewer.getByLabel("Justification").fill("Vehicle positions for the depot's wall screen");
  await viewer.getByRole("button", { name: "Send request" }).click();
  await expect(viewer).toHaveURL(`${appUrl}#access-requests-heading`);
  const requests = viewer.getByRole("table", { name: "Access requests of this app" });
  await expect(requests).toContainText("pending");
  await expect(requests).toContainText(`/${topic}/{vehicle}`);

  // The editor approves it in the inbox.
  await editor.getByRole("link", { name: "Access requests" }).click();
  const row = editor.getByRole("row").filter({ hasText: appName });
  await expect(row).toContainText("Vehicle positions for the depot's wall screen");
  await row.getByRole("button", { name: "Approve" }).click();
  await expect(row.getByRole("status")).toContainText(`granted /${topic}/*`);

  // The viewer sees the decision and the grant, and mints a token from it.
  await viewer.reload();
  await expect(requests).toContainText("approved");
  await expect(requests).toContainText(`by ${`editor-ar-${stamp}@e2e.sluice`}`);
  await expect(viewer.getByRole("table", { name: "Grants" })).toContainText(`/${topic}/*`);
  await viewer.getByRole("checkbox", { name: `Subscribe /${topic}/*` }).check();
  await viewer.getByLabel("Lifetime").selectOption({ label: "1 hour" });
  await viewer.getByRole("button", { name: "Mint token" }).click();
  const token = (await viewer.getByTestId("new-token").textContent())!.trim();

  // The token connects through the gateway and receives a live record.
  let client: SluiceClient | undefined;
  try {
    client = await connect(gatewayWsUrl(), { token, WebSocket: WebSocket as never });
    const sub = client.subscribe(`/${topic}/truck-1`);
    await sub.ready;
    const next = sub[Symbol.asyncIterator]().next();
    await produce(topic, "truck-1", { speedKmh: 42, stamp });
    const received = await Promise.race([next, new Promise<null>((r) => setTimeout(() => r(null), 10_000))]);
    expect(received, "no record reached the SDK client within 10 s").not.toBeNull();
    expect((received as IteratorResult<{ data: unknown }>).value.data).toEqual({ speedKmh: 42, stamp });
  } finally {
    await client?.close();
  }

  // A second request, for the whole API with publish, is rejected with a reason the viewer reads on the app page.
  await viewer.goto(endpointUrl.replace(/\/endpoints\/.*$/, ""));
  await viewer.getByRole("link", { name: "Request access" }).click();
  await viewer.getByRole("radio", { name: /The whole API/ }).check();
  await viewer.getByLabel("Justification").fill("Also the rest, please");
  await viewer.getByRole("button", { name: "Send request" }).click();
  await expect(requests).toContainText("the whole API");

  await editor.goto("/access-requests");
  const second = editor.getByRole("row").filter({ hasText: "Also the rest, please" });
  await second.getByRole("button", { name: "Reject" }).click();
  await expect(second.getByTestId("error-reason")).toBeVisible();
  await second.getByLabel("Reason for rejecting").fill("One endpoint is all a wall screen needs");
  await second.getByRole("button", { name: "Reject" }).click();
  await expect(second.getByRole("status")).toHaveText("Rejected: “One endpoint is all a wall screen needs”.");
  await editor.reload();
  await expect(editor.getByRole("row").filter({ hasText: "Also the rest, please" })).toHaveCount(0);

  await viewer.reload();
  const rejected = requests.getByRole("row").filter({ hasText: "the whole API" });
  await expect(rejected).toContainText("rejected");
  await expect(rejected.getByTestId("access-request-reason")).toHaveText("Reason: One endpoint is all a wall screen needs");
});
