// The bridge over the test stack's secured listeners: as its own SCRAM user on
// SASL_SSL, and with the client certificate on the mutual-TLS listener, it
// creates the catalog topic and publishes outbox rows exactly; with a wrong
// password it says which setting to fix within 15 s and never prints the password.
import assert from "node:assert/strict";
import { test } from "node:test";
import { mtlsSettings, scramSettings, securedKafkaFromEnv } from "@sluice/kafka-settings/test-support/secured-kafka";
import { insertOutbox, pendingCount, scratchPerFile, startBridgeProcess, topicRecords, waitFor } from "./helpers.ts";

const secured = securedKafkaFromEnv();

const password = secured.users["sluice-bridge"]!;
const overSaslSsl = scramSettings(secured, "sluice-bridge");
const overMtls = mtlsSettings(secured);

for (const [name, brokers, extra] of [
  ["SASL_SSL (SCRAM-SHA-512)", secured.saslSslBrokers, overSaslSsl],
  ["mutual TLS", secured.mtlsBrokers, overMtls],
] as const) {
  const scratch = scratchPerFile();
  test(`over ${name}: the bridge creates the catalog topic and publishes outbox rows, then marks them published`, async () => {
    const bridge = await startBridgeProcess({ databaseUrl: scratch.db.url, topic: scratch.topic, brokers: brokers.join(","), extra });
    await bridge.waitForLog(/publishing outbox changes/);
    const written = [
      { key: "app/s1", value: { v: 1, id: "s1", name: "Secured", tokens_not_before: null } },
      { key: "revoked/jti-1", value: { v: 1, jti: "jti-1", app: "s1", expires_at: 1900000000 } },
    ];
    await insertOutbox(scratch.db.pool, written);
    const records = await waitFor("the records on the topic", async () => {
      const r = await topicRecords(scratch.topic);
      return r.length >= 2 ? r : undefined;
    });
    assert.deepEqual(
      records.map((r) => [r.key, r.value === null ? null : JSON.parse(r.value)]),
      written.map((w) => [w.key, w.value]),
    );
    await waitFor("rows marked published", async () => (await pendingCount(scratch.db.pool)) === 0);
    await bridge.stop();
  });
}

const wrong = scratchPerFile();
test("with a wrong password the bridge names KAFKA_SASL_PASSWORD within 15 s and never prints the password", async () => {
  const bad = "a-wrong-password-that-must-not-be-printed";
  const bridge = await startBridgeProcess({
    databaseUrl: wrong.db.url,
    topic: wrong.topic,
    brokers: secured.saslSslBrokers.join(","),
    extra: { ...overSaslSsl, KAFKA_SASL_PASSWORD: bad },
  });
  const started = Date.now();
  await waitFor(`KAFKA_SASL_PASSWORD in the bridge's output\n${bridge.output()}`, () => /KAFKA_SASL_PASSWORD/.test(bridge.output()));
  assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
  assert.ok(!bridge.output().includes(bad), "the wrong password is in the output");
  assert.ok(!bridge.output().includes(password), "the real password is in the output");
  await bridge.kill();
});
