import { readFileSync } from "node:fs";

import { expect, test } from "@playwright/test";

import { createTopic } from "../support/kafka";

// A Kafka team publishes a topic as a documented Streaming API, and the change
// is audited.
test("create an API and an endpoint on a real topic, read its AsyncAPI docs, see the audit entry", async ({ page }) => {
  const stamp = Date.now();
  const topic = `e2e-prices-${stamp}`;
  const apiName = `E2E Market data ${stamp}`;
  await createTopic(topic, 3);

  await page.goto("/apis");
  await page.getByRole("link", { name: "New API" }).first().click();
  await page.getByLabel("Name").fill(apiName);
  await page.getByLabel("Version").fill("not a version!");
  await page.getByLabel("Description").fill("Live prices per symbol.");
  await page.getByRole("button", { name: "Create API" }).click();
  await expect(page.getByTestId("error-version")).toBeVisible();
  await expect(page.getByLabel("Name")).toHaveValue(apiName);
  await page.getByLabel("Version").fill("1.0.0");
  await page.getByRole("button", { name: "Create API" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toContainText(apiName);

  // The topic list comes from Kafka and shows partitions.
  await page.getByRole("link", { name: "Add endpoint" }).click();
  const topicSelect = page.getByLabel("Kafka topic");
  await expect(topicSelect.locator("option", { hasText: topic })).toHaveText(`${topic} — 3 partitions`);
  await topicSelect.selectOption(topic);
  await page.getByLabel("Key").fill("{symbol}");
  await page.getByRole("checkbox", { name: /^Subscribe/ }).check();
  await page.getByLabel("Payload format").selectOption("json");
  await page
    .getByLabel("JSON Schema (optional)")
    .fill(JSON.stringify({ type: "object", required: ["price"], properties: { price: { type: "number" } } }));
  await page.getByLabel("Example messages (optional)").fill(JSON.stringify([{ price: "cheap" }]));
  await page.getByRole("button", { name: "Create endpoint" }).click();
  // An example that breaks the schema is refused, and the form keeps its values.
  await expect(page.getByTestId("error-examples")).toBeVisible();
  await expect(page.getByLabel("Key")).toHaveValue("{symbol}");
  await page.getByLabel("Example messages (optional)").fill(JSON.stringify([{ price: 101.5 }]));
  await page.getByRole("button", { name: "Create endpoint" }).click();
  await expect(page.getByTestId("endpoint-path")).toHaveText(`/${topic}/{symbol}`);
  await expect(page.getByTestId("endpoint-partitions")).toContainText("3");

  // Its AsyncAPI documentation: rendered, and downloadable.
  await page.getByRole("link", { name: apiName }).first().click();
  await page.getByRole("link", { name: "AsyncAPI docs" }).click();
  const docs = page.getByTestId("asyncapi-docs");
  await expect(docs.getByText(`/${topic}/{symbol}`).first()).toBeVisible({ timeout: 15_000 });
  const download = page.waitForEvent("download");
  await page.getByRole("link", { name: "Download YAML" }).click();
  const yaml = readFileSync(await (await download).path(), "utf8");
  expect(yaml).toContain("asyncapi: 3.0.0");
  expect(yaml).toContain(`/${topic}/{symbol}`);

  // The audit log shows who created the endpoint.
  await page.getByRole("link", { name: "Audit log" }).click();
  await page.getByLabel("Action").fill("endpoint.create");
  await page.getByRole("button", { name: "Apply filters" }).click();
  const entry = page
    .getByTestId("audit-entry")
    .filter({ hasText: `/${topic}/{symbol}` })
    .first();
  await expect(entry).toBeVisible();
  await entry.getByText("Show changes").click();
  await expect(entry.getByTestId("audit-diff")).toContainText("path");
});
