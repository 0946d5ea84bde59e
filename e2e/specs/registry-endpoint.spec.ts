import { expect, test } from "@playwright/test";

import { ADMIN, anonymous, signIn } from "../support/accounts";
import { createTopic, produceRaw, readRecord } from "../support/kafka";
import { avroWireDecode, avroWireEncoder, registerAvroSchema } from "../support/schema-registry";

// Issue 16's story: a Kafka team whose producers write Avro through the schema
// registry exposes the topic as an avro endpoint; the portal shows the
// registry's schema, and the live console shows the records decoded as JSON.
// The records are written by avsc, an encoder independent of the gateway's Go
// decoder, in the Confluent wire format.
test.use(anonymous);

const orderSchema = {
  type: "record",
  name: "Order",
  namespace: "com.acme.e2e",
  fields: [
    { name: "id", type: "string" },
    { name: "qty", type: "int" },
    { name: "price", type: "double" },
    { name: "status", type: { type: "enum", name: "Status", symbols: ["NEW", "PAID"] } },
    { name: "note", type: ["null", "string"], default: null },
  ],
};

test("an avro endpoint shows its registry schema and the console shows avsc-written records as JSON", async ({ page }) => {
  test.setTimeout(90_000);
  const stamp = Date.now();
  const topic = `e2e-avro-${stamp}`;
  const subject = `${topic}-value`;
  const apiName = `E2E Avro ${stamp}`;
  await createTopic(topic, 1);
  const schemaId = await registerAvroSchema(subject, orderSchema);
  const encode = avroWireEncoder(orderSchema, schemaId);

  await signIn(page, ADMIN.email, ADMIN.password);
  await page.goto("/apis/new");
  await page.getByLabel("Name").fill(apiName);
  await page.getByLabel("Version").fill("1.0.0");
  await page.getByRole("button", { name: "Create API" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toContainText(apiName);

  // The endpoint form: avro with the topic strategy; the subject is computed, the
  // registry lists it for the topic and shows its schema before anything is saved.
  await page.getByRole("link", { name: "Add endpoint" }).click();
  await page.getByLabel("Kafka topic").selectOption(topic);
  await page.getByLabel("Key").fill("{order}");
  await page.getByRole("checkbox", { name: /^Subscribe/ }).check();
  await page.getByRole("checkbox", { name: /^Publish/ }).check();
  await page.getByLabel("Payload format").selectOption("avro");
  await expect(page.getByTestId("value-subject")).toHaveText(subject);
  await expect(page.getByTestId("topic-subjects")).toContainText(subject);
  await expect(page.getByTestId("value-schema-text")).toContainText('"name": "Order"');
  await expect(page.getByLabel("Version for publishing")).toContainText("latest (now 1)");
  // The record strategy names another subject, which the registry does not have: the form says so.
  await page.getByLabel("Subject name strategy").selectOption("record");
  await page.getByLabel("Record name").fill("com.acme.e2e.Missing");
  await expect(page.getByTestId("value-subject")).toHaveText("com.acme.e2e.Missing");
  await expect(page.getByTestId("value-schema-problem")).toBeVisible();
  // Saving it is refused, naming the field; back to the topic strategy it saves.
  await page.getByRole("button", { name: "Create endpoint" }).click();
  await expect(page.getByTestId("error-valueSchema.subject")).toContainText("com.acme.e2e.Missing");
  await page.getByLabel("Subject name strategy").selectOption("topic");
  await expect(page.getByTestId("value-subject")).toHaveText(subject);
  await page.getByRole("button", { name: "Create endpoint" }).click();
  await expect(page.getByTestId("endpoint-path")).toHaveText(`/${topic}/{order}`);

  // The endpoint page shows the registry schema.
  await expect(page.getByTestId("endpoint-value-subject")).toHaveText(subject);
  await expect(page.getByTestId("endpoint-value-version")).toHaveText("latest (now 1)");
  await expect(page.getByTestId("endpoint-value-schema-type")).toHaveText("AVRO");
  await expect(page.getByTestId("endpoint-schema")).toContainText('"namespace": "com.acme.e2e"');

  // The live console on key A-17.
  const consoleBox = page.getByTestId("live-console");
  await consoleBox.getByLabel(/^Key/).fill("A-17");
  await consoleBox.getByTestId("console-try").click();
  await expect(consoleBox.getByTestId("console-state")).toHaveAttribute("data-phase", "connected", { timeout: 15_000 });
  await expect(consoleBox.getByTestId("console-notice").filter({ hasText: `Live on /${topic}/A-17` })).toBeVisible();

  // An Avro record written by avsc arrives decoded, as the documented JSON.
  const order = { id: `order-${stamp}`, qty: 3, price: 12.5, status: "PAID", note: "gift wrap" };
  const produced = await produceRaw(topic, "A-17", encode(order));
  const row = consoleBox.getByTestId("console-message").filter({ hasText: order.id });
  await expect(row).toBeVisible({ timeout: 5_000 });
  await expect(row.getByTestId("console-message-position")).toHaveText(`p${produced.partition}:${produced.offset}`);
  const payload = row.getByTestId("console-message-payload");
  await expect(payload).toHaveAttribute("data-kind", "json");
  expect(JSON.parse((await payload.textContent())!)).toEqual(order);
  await expect(row.getByTestId("console-message-error")).toHaveCount(0);

  // A record whose schema id the registry does not have arrives undecoded, base64, with the reason.
  const unknownId = schemaId + 100_000;
  const stray = avroWireEncoder(orderSchema, unknownId)({ ...order, id: "stray", note: null });
  await produceRaw(topic, "A-17", stray);
  const strayRow = consoleBox.getByTestId("console-message").filter({ has: page.getByTestId("console-message-error") });
  await expect(strayRow).toBeVisible({ timeout: 5_000 });
  await expect(strayRow.getByTestId("console-message-error")).toContainText(String(unknownId));
  await expect(strayRow.getByTestId("console-message-payload")).toHaveText(stray.toString("base64"));

  // Publishing JSON: a value that does not fit the schema is the gateway's 4022 naming the field…
  await consoleBox.getByLabel(/^JSON/).fill(JSON.stringify({ ...order, qty: "three" }));
  await consoleBox.getByTestId("console-publish").click();
  await expect(consoleBox.getByTestId("error-console-publish")).toContainText("4022");
  await expect(consoleBox.getByTestId("error-console-publish")).toContainText("$.qty");
  // …one that fits is encoded by the gateway; avsc reads it back from Kafka, and the console shows it.
  const published = { id: `console-${stamp}`, qty: 1, price: 2.25, status: "NEW", note: null };
  await consoleBox.getByLabel(/^JSON/).fill(JSON.stringify(published));
  await consoleBox.getByTestId("console-publish").click();
  const ack = consoleBox.getByTestId("console-publish-result");
  await expect(ack).toContainText(`Published to /${topic}/A-17`);
  const [, partition, offset] = (await ack.textContent())!.match(/partition (\d+), offset (\d+)/)!;
  const record = await readRecord(topic, Number(partition), offset!);
  expect(avroWireDecode(orderSchema, schemaId, record.raw)).toEqual(published);
  await expect(consoleBox.getByTestId("console-message").filter({ hasText: published.id })).toBeVisible();
});

// Registry-encoded keys (the portal's side): a JSON topic whose keys an Avro
// serializer wrote. The form's Keys section lists the topic's key subjects and
// shows the key schema; an exact key must be the decoded key's compact JSON in
// the schema's field order; the endpoint page shows the key schema.
test("an endpoint with Avro record keys: the Keys section, the canonical key, the key schema on the endpoint page", async ({ page }) => {
  test.setTimeout(60_000);
  const stamp = Date.now();
  const topic = `e2e-avro-keys-${stamp}`;
  const subject = `${topic}-key`;
  await createTopic(topic, 3);
  await registerAvroSchema(subject, {
    type: "record",
    name: "CartKey",
    namespace: "com.acme.e2e",
    fields: [
      { name: "shop", type: "string" },
      { name: "id", type: "int" },
    ],
  });

  await signIn(page, ADMIN.email, ADMIN.password);
  await page.goto("/apis/new");
  await page.getByLabel("Name").fill(`E2E Avro keys ${stamp}`);
  await page.getByLabel("Version").fill("1.0.0");
  await page.getByRole("button", { name: "Create API" }).click();
  await page.getByRole("link", { name: "Add endpoint" }).click();
  await page.getByLabel("Kafka topic").selectOption(topic);
  await page.getByRole("checkbox", { name: /^Subscribe/ }).check();
  await page.getByRole("radio", { name: "Schema registry subject" }).check();
  await expect(page.getByTestId("key-subject")).toHaveText(subject);
  await expect(page.getByTestId("topic-key-subjects")).toContainText(subject);
  await expect(page.getByTestId("key-schema-text")).toContainText('"name": "CartKey"');

  // The members out of the schema's order: refused, naming the canonical form.
  await page.getByLabel("Key", { exact: true }).fill('{"id":7,"shop":"eu"}');
  await page.getByRole("button", { name: "Create endpoint" }).click();
  await expect(page.getByTestId("error-key")).toContainText('schema\'s order ({"shop":"eu","id":7})');
  await page.getByLabel("Key", { exact: true }).fill('{"shop":"eu","id":7}');
  await page.getByRole("button", { name: "Create endpoint" }).click();
  await expect(page.getByTestId("endpoint-path")).toHaveText(`/${topic}/%7B%22shop%22%3A%22eu%22%2C%22id%22%3A7%7D`);

  await expect(page.getByTestId("endpoint-key-encoding")).toBeVisible();
  await expect(page.getByTestId("endpoint-key-subject")).toHaveText(subject);
  await expect(page.getByTestId("endpoint-key-version")).toHaveText("latest (now 1)");
  await expect(page.getByTestId("endpoint-key-schema-type")).toHaveText("AVRO");
  await expect(page.getByTestId("endpoint-key-schema-text")).toContainText('"namespace": "com.acme.e2e"');

  // Editing keeps the key schema chosen.
  await page.getByRole("link", { name: "Edit endpoint" }).click();
  await expect(page.getByRole("radio", { name: "Schema registry subject" })).toBeChecked();
  await expect(page.getByTestId("key-subject")).toHaveText(subject);
});
