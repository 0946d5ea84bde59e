import { readFileSync } from "node:fs";

import { expect, test } from "@playwright/test";

import { createTopic, produceRaw } from "../support/kafka";

const USAGE_TOPIC = process.env.SLUICE_USAGE_TOPIC || "__sluice_usage";

// Usage records on the usage topic (as gateway nodes write them, per the usage
// contract) show up on the traffic pages: the endpoint's, the app's, the
// overview and the gateway nodes, with charts, top apps, refusals and CSV.
test("usage produced to the usage topic is charted on the endpoint, app and overview traffic pages", async ({ page }) => {
  const stamp = Date.now();
  const topic = `e2e-traffic-${stamp}`;
  await createTopic(topic, 1);

  await page.goto("/apis/new");
  await page.getByLabel("Name").fill(`E2E Traffic ${stamp}`);
  await page.getByLabel("Version").fill("1.0.0");
  await page.getByRole("button", { name: "Create API" }).click();
  await page.getByRole("link", { name: "Add endpoint" }).click();
  await page.getByLabel("Kafka topic").selectOption(topic);
  await page.getByLabel("Key").fill("{symbol}");
  await page.getByRole("checkbox", { name: /^Subscribe/ }).check();
  await page.getByRole("button", { name: "Create endpoint" }).click();
  await expect(page.getByTestId("endpoint-path")).toHaveText(`/${topic}/{symbol}`);
  const [, apiId, endpointId] = new URL(page.url()).pathname.match(/^\/apis\/([^/]+)\/endpoints\/([^/]+)$/)!;

  const appName = `e2e traffic app ${stamp}`;
  await page.goto("/apps/new");
  await page.getByLabel("Name").fill(appName);
  await page.getByRole("button", { name: "Create app" }).click();
  const appId = (await page.getByTestId("app-id").textContent())!.trim();

  // One node, two intervals in the last complete minute, then a current one so it is live.
  const node = `gw-e2e-${stamp}`;
  const minute = Math.floor(Date.now() / 60_000) * 60_000 - 60_000;
  const record = (start: number, end: number, delivered: number, refusedPublish: number) => ({
    v: 1,
    node,
    version: "0.0.0-e2e",
    started_at: minute - 120_000,
    interval_start: start,
    interval_end: end,
    final: false,
    catalog_offset_lag: 0,
    connections: 2,
    apps:
      delivered === 0
        ? []
        : [
            {
              app: appId,
              connections: 2,
              refused: { connections: 1 },
              endpoints: [
                {
                  endpoint: endpointId,
                  path: `/${topic}/{symbol}`,
                  subscriptions: 3,
                  delivered,
                  delivered_bytes: delivered * 40,
                  published: 2,
                  published_bytes: 80,
                  errors: 0,
                  refused: { subscriptions: 0, publish: refusedPublish, delivered: 0 },
                },
              ],
            },
          ],
  });
  for (const value of [
    record(minute, minute + 5000, 1000, 5),
    record(minute + 5000, minute + 10_000, 500, 0),
    // A 60 s interval (the contract's longest): the node stays live for 3 minutes, however slow the run.
    record(Date.now() - 60_000, Date.now(), 0, 0),
  ]) {
    await produceRaw(USAGE_TOPIC, node, Buffer.from(JSON.stringify(value)));
  }

  // The endpoint page links its traffic; the bridge aggregates within a moment.
  await page.goto(`/apis/${apiId}/endpoints/${endpointId}`);
  await page.getByRole("link", { name: "Traffic" }).last().click();
  await expect(page).toHaveURL(`/apis/${apiId}/endpoints/${endpointId}/traffic`);
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("usage-total-delivered")).toHaveText("1,500", { timeout: 1000 });
  }).toPass({ timeout: 30_000 });
  await expect(page.getByTestId("usage-total-refused")).toHaveText("5");
  await expect(page.getByTestId("chart-messages").locator("canvas")).toBeVisible();
  await expect(page.getByTestId("chart-messages")).toHaveAttribute("data-total", String(1500 / 60 + 4 / 60));
  await expect(page.getByTestId("chart-refusals")).toHaveAttribute("data-total", "5");
  await expect(page.getByTestId("top-apps")).toContainText(appName);

  // The CSV export of the same series.
  const download = page.waitForEvent("download");
  await page.getByRole("link", { name: "Export CSV" }).click();
  const csv = readFileSync(await (await download).path(), "utf8").split("\r\n");
  expect(csv[0]).toMatch(/^time,delivered_per_second,/);
  expect(csv).toContain(`${new Date(minute).toISOString()},25,1000,0.06666666666666667,2.6666666666666665,3,,0,,0,5,0`);

  // The top app leads to the app's traffic, with its connections.
  await page.getByTestId("top-apps").getByRole("link", { name: appName }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Traffic of ${appName}`);
  await expect(page.getByTestId("usage-total-published")).toHaveText("4");
  await expect(page.getByTestId("chart-clients")).toHaveAttribute("data-total", "5");

  // Last week reads the hour buckets: the same totals.
  await page.getByRole("link", { name: "Last week" }).click();
  await expect(page.getByTestId("usage-view")).toHaveAttribute("data-range", "week");
  await expect(page.getByTestId("usage-total-delivered")).toHaveText("1,500");

  // The header's Traffic: the overview, and the gateway nodes.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Traffic" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Traffic");
  await page.getByRole("link", { name: "Gateway nodes" }).click();
  const row = page.locator(`tr[data-node="${node}"]`);
  await expect(row).toContainText("live");
  await expect(row).toContainText("0.0.0-e2e");
});
