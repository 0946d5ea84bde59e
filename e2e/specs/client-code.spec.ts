import { readFileSync } from "node:fs";

import { expect, test } from "@playwright/test";
import { unzipSync } from "fflate";

import { createTopic } from "../support/kafka";

// An app developer on an endpoint's page picks a language with the keyboard,
// copies the snippet and downloads the whole client as a zip.
test("client code: snippet tabs work with the keyboard, copy puts the snippet on the clipboard, the zip holds the client", async ({
  page,
  context,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const stamp = Date.now();
  const topic = `e2e-codegen-${stamp}`;
  const apiName = `E2E Codegen ${stamp}`;
  await createTopic(topic, 1);

  await page.goto("/apis/new");
  await page.getByLabel("Name").fill(apiName);
  await page.getByLabel("Version").fill("2.1.0");
  await page.getByRole("button", { name: "Create API" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toContainText(apiName);
  await page.getByRole("link", { name: "Add endpoint" }).click();
  await page.getByLabel("Kafka topic").selectOption(topic);
  await page.getByLabel("Key").fill("{symbol}");
  await page.getByRole("checkbox", { name: /^Subscribe/ }).check();
  await page.getByRole("checkbox", { name: /^Publish/ }).check();
  await page.getByLabel("Payload format").selectOption("json");
  await page.getByRole("button", { name: "Create endpoint" }).click();
  await expect(page.getByTestId("endpoint-path")).toHaveText(`/${topic}/{symbol}`);

  const section = page.getByRole("region", { name: "Client code" });
  const tabs = section.getByRole("tablist", { name: "Client code language" }).getByRole("tab");
  const count = await tabs.count();
  expect(count).toBeGreaterThanOrEqual(6);
  await expect(tabs.first()).toHaveAttribute("aria-selected", "true");
  const visiblePanel = section.getByRole("tabpanel");
  await expect(visiblePanel).toHaveCount(1);

  // Arrow keys move the selection (and focus) and wrap; Home and End jump.
  await tabs.first().focus();
  await page.keyboard.press("ArrowRight");
  await expect(tabs.nth(1)).toHaveAttribute("aria-selected", "true");
  await expect(tabs.nth(1)).toBeFocused();
  await expect(tabs.first()).toHaveAttribute("tabindex", "-1");
  await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("ArrowLeft");
  await expect(tabs.nth(count - 1)).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("Home");
  await expect(tabs.first()).toBeFocused();
  await page.keyboard.press("End");
  await expect(tabs.nth(count - 1)).toBeFocused();
  await expect(visiblePanel).toHaveAttribute("aria-labelledby", (await tabs.nth(count - 1).getAttribute("id"))!);

  // Every language's snippet is about this endpoint.
  for (let i = 0; i < count; i++) {
    await tabs.nth(i).click();
    // biome-ignore lint/performance/useDomNodeTextContent: a Playwright locator's innerText(), not a DOM node's (and it returns a string, where textContent() may give null).
    await expect(visiblePanel.getByTestId("snippet-code"), await tabs.nth(i).innerText()).toContainText(topic);
  }

  // Copy: the clipboard holds exactly the snippet shown.
  const curlTab = tabs.filter({ hasText: /^curl$/ });
  await curlTab.click();
  const code = (await visiblePanel.getByTestId("snippet-code").textContent())!;
  await visiblePanel.getByRole("button", { name: "Copy" }).click();
  await expect(visiblePanel.getByRole("button", { name: "Copied" })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(code);

  // The choice is remembered on the next page.
  await page.reload();
  await expect(curlTab).toHaveAttribute("aria-selected", "true");

  // The download is a zip with the whole client under one folder.
  const download = page.waitForEvent("download");
  await visiblePanel.getByRole("link", { name: /^Download the curl client/ }).click();
  const file = await download;
  const folder = `e2e-codegen-${stamp}-2.1.0-curl`;
  expect(file.suggestedFilename()).toBe(`${folder}.zip`);
  const entries = unzipSync(new Uint8Array(readFileSync(await file.path())));
  const names = Object.keys(entries);
  expect(names.every((n) => n.startsWith(`${folder}/`))).toBe(true);
  expect(names.sort()).toEqual([`${folder}/README.md`, `${folder}/client.sh`]);
  expect(new TextDecoder().decode(entries[`${folder}/README.md`])).toContain(apiName);

  // The API's page offers the same section, for its first endpoint.
  await page.getByRole("link", { name: `${apiName} v2.1.0` }).click();
  await expect(page.getByRole("region", { name: "Client code" }).getByRole("tabpanel").getByTestId("snippet-code")).toContainText(topic);
});
