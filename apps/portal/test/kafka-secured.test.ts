// The portal's Kafka calls (the topic list and lookup behind the endpoint form
// and the catalog checks) over the test stack's secured listeners: as its own
// SCRAM user on SASL_SSL and with the client certificate on the mutual-TLS
// listener; and a wrong password answered with a 503 that names the setting.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import { mtlsSettings, scramSettings, securedKafkaFromEnv } from "@sluice/kafka-settings/test-support/secured-kafka";
import { Kafka, logLevel } from "kafkajs";

import { AppError } from "../lib/errors";
import { closeKafkaAdmins, findKafkaTopic, listKafkaTopics } from "../lib/kafka/admin";

const secured = securedKafkaFromEnv();

const plaintext = (process.env.KAFKA_BROKERS ?? "").split(",").filter(Boolean);
const topic = `portal-secured-${randomBytes(4).toString("hex")}`;
const saved = { ...process.env };
const plain = new Kafka({ brokers: plaintext, logLevel: logLevel.NOTHING }).admin();

/** The portal reads its Kafka settings from its environment when a client connects. */
function useSettings(settings: Record<string, string>): void {
  for (const name of Object.keys(process.env))
    if (name.startsWith("KAFKA_SASL_") || name.startsWith("KAFKA_TLS_")) delete process.env[name];
  Object.assign(process.env, settings);
}

before(async () => {
  await plain.connect();
  await plain.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true });
});
after(async () => {
  // The portal keeps its admin clients open; a test process must close them to exit.
  await closeKafkaAdmins();
  process.env = saved;
  await plain.deleteTopics({ topics: [topic] }).catch(() => {});
  await plain.disconnect();
});

test("over SASL_SSL as the portal's SCRAM user: the topic list has the topic with its partitions", async () => {
  useSettings(scramSettings(secured, "sluice-portal"));
  const topics = await listKafkaTopics({ fresh: true, brokers: secured.saslSslBrokers });
  assert.deepEqual(
    topics.find((t) => t.name === topic),
    { name: topic, partitions: 2 },
  );
});

test("over mutual TLS: the topic is found", async () => {
  useSettings(mtlsSettings(secured));
  assert.deepEqual(await findKafkaTopic(topic, { brokers: secured.mtlsBrokers }), { name: topic, partitions: 2 });
});

test("a wrong password: 503 naming KAFKA_SASL_PASSWORD, without the password", async () => {
  const wrong = "not-the-portal-password";
  useSettings(scramSettings(secured, "sluice-portal", wrong));
  // "localhost" rather than 127.0.0.1: a client of its own (the portal keeps one per broker list).
  const brokers = secured.saslSslBrokers.map((b) => b.replace("127.0.0.1", "localhost"));
  const started = Date.now();
  await assert.rejects(listKafkaTopics({ fresh: true, brokers }), (err: unknown) => {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.status, 503);
    assert.match(err.message, /KAFKA_SASL_PASSWORD/);
    assert.ok(!err.message.includes(wrong) && !err.message.includes(secured.users["sluice-portal"]!), "no password in the message");
    return true;
  });
  assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
});
