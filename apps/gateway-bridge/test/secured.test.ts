// The bridge over the test stack's secured listeners: as its own SCRAM user on
// SASL_SSL, with the client certificate on the mutual-TLS listener, and as an
// OAuth client with client-credentials tokens on the OAUTHBEARER listener, it
// creates the catalog topic and publishes outbox rows exactly; with a wrong
// password or OAuth client secret it says which setting to fix within 15 s and
// never prints the secret.
import assert from "node:assert/strict";
import { test } from "node:test";
import { mtlsSettings, oauthSettings, scramSettings, securedKafkaFromEnv } from "@sluice/kafka-settings/test-support/secured-kafka";
import { insertOutbox, pendingCount, scratchPerFile, startBridgeProcess, topicRecords, waitFor } from "./helpers.ts";

const secured = securedKafkaFromEnv();

const password = secured.users["sluice-bridge"]!;
const overSaslSsl = scramSettings(secured, "sluice-bridge");
const overMtls = mtlsSettings(secured);
const overOauth = oauthSettings(secured);

for (const [name, brokers, extra] of [
  ["SASL_SSL (SCRAM-SHA-512)", secured.saslSslBrokers, overSaslSsl],
  ["mutual TLS", secured.mtlsBrokers, overMtls],
  ["SASL_SSL (OAUTHBEARER)", secured.oauthBrokers, overOauth],
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

for (const [what, brokers, extra, variable, real] of [
  ["a wrong password", secured.saslSslBrokers, overSaslSsl, "KAFKA_SASL_PASSWORD", password],
  [
    "a wrong OAuth client secret",
    secured.oauthBrokers,
    overOauth,
    "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET",
    overOauth.KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET!,
  ],
] as const) {
  const wrong = scratchPerFile();
  test(`with ${what} the bridge names ${variable} within 15 s and never prints the secret`, async () => {
    const bad = "a-wrong-secret-that-must-not-be-printed";
    const bridge = await startBridgeProcess({
      databaseUrl: wrong.db.url,
      topic: wrong.topic,
      brokers: brokers.join(","),
      extra: { ...extra, [variable]: bad },
    });
    const started = Date.now();
    await waitFor(`${variable} in the bridge's output\n${bridge.output()}`, () => bridge.output().includes(variable));
    assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
    assert.ok(!bridge.output().includes(bad), "the wrong secret is in the output");
    assert.ok(!bridge.output().includes(real), "the real secret is in the output");
    await bridge.kill();
  });
}
