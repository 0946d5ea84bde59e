// The portal's Kafka calls (the topic list and lookup behind the endpoint form
// and the catalog checks) over the test stack's secured listeners: as its own
// SCRAM user on SASL_SSL, with the client certificate on the mutual-TLS listener
// and as an OAuth client on the OAUTHBEARER listener; an endpoint on a topic the
// ACLs deny the portal's user refused with a 422 naming the ACL to grant; and a
// wrong password answered with a 503 that names the setting.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import { mtlsSettings, oauthSettings, scramSettings, securedKafkaFromEnv } from "@sluice/kafka-settings/test-support/secured-kafka";
import { Kafka, logLevel } from "kafkajs";

import { authorize } from "../lib/auth/actor";
import { createApi } from "../lib/domain/apis/create-api";
import { deleteApi } from "../lib/domain/apis/delete-api";
import { createEndpoint } from "../lib/domain/endpoints/create-endpoint";
import { AppError } from "../lib/errors";
import { closeKafkaAdmins, findKafkaTopic, listKafkaTopics } from "../lib/kafka/admin";
import { createApiInput } from "../lib/validation/apis";
import { createEndpointInput } from "../lib/validation/endpoints";
import { parseInput } from "../lib/validation/parse";
import { db, seedUser } from "./helpers";

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
  assert.deepEqual(await findKafkaTopic(topic, { brokers: secured.mtlsBrokers }), {
    kind: "found",
    topic: { name: topic, partitions: 2 },
  });
});

test("over SASL_SSL with OAUTHBEARER, as the issuer's OAuth client: the topic list has the topic with its partitions", async () => {
  useSettings(oauthSettings(secured));
  const topics = await listKafkaTopics({ fresh: true, brokers: secured.oauthBrokers });
  assert.deepEqual(
    topics.find((t) => t.name === topic),
    { name: topic, partitions: 2 },
  );
});

test("a topic created after the list was cached is found by name, with its partitions, and then listed", async () => {
  useSettings(scramSettings(secured, "sluice-portal"));
  await listKafkaTopics({ fresh: true, brokers: secured.saslSslBrokers });
  const later = `${topic}-later`;
  await plain.createTopics({ topics: [{ topic: later, numPartitions: 3 }], waitForLeaders: true });
  try {
    assert.deepEqual(await findKafkaTopic(later, { brokers: secured.saslSslBrokers }), {
      kind: "found",
      topic: { name: later, partitions: 3 },
    });
    // ... and the topic list, cached before, shows it from now on.
    const listed = await listKafkaTopics({ brokers: secured.saslSslBrokers });
    assert.deepEqual(
      listed.find((t) => t.name === later),
      { name: later, partitions: 3 },
    );
  } finally {
    await plain.deleteTopics({ topics: [later] }).catch(() => {});
  }
});

test("as the portal's SCRAM user, whom the ACLs deny one topic: defining an endpoint on it is a 422 naming the ACL, the topic and the user", async () => {
  useSettings(scramSettings(secured, "sluice-portal"));
  const { actor } = await seedUser("editor", "acl");
  const editor = authorize(actor, "editor");
  const api = await createApi({
    db,
    actor: editor,
    input: parseInput(createApiInput, { name: `ACL ${randomBytes(3).toString("hex")}`, version: "1.0.0" }),
  });
  // The lookup over the secured listener; the default one reads KAFKA_BROKERS (the plaintext listener).
  const define = (where: { path: string } | { topic: string; keyParam: string }) =>
    createEndpoint({
      db,
      actor: editor,
      apiId: api.id,
      input: parseInput(createEndpointInput, { ...where, operations: ["subscribe"], payloadFormat: "json" }),
      topics: (name) => findKafkaTopic(name, { brokers: secured.saslSslBrokers }),
    });
  const refusal = async (where: Parameters<typeof define>[0]) => {
    try {
      await define(where);
    } catch (err) {
      assert.ok(err instanceof AppError, String(err));
      assert.equal(err.status, 422, err.message);
      assert.equal(err.fieldErrors.length, 1, err.message);
      return err.fieldErrors[0]!;
    }
    assert.fail(`an endpoint on ${JSON.stringify(where)} was defined`);
  };
  try {
    // Kafka leaves the denied topic out of the portal's listing without a word.
    const listed = await listKafkaTopics({ fresh: true, brokers: secured.saslSslBrokers });
    assert.ok(!listed.some((t) => t.name === secured.aclDeniedTopic), "the denied topic is listed");

    const denied = await refusal({ topic: secured.aclDeniedTopic, keyParam: "id" });
    assert.equal(denied.field, "topic");
    assert.match(denied.message, /Kafka's ACLs deny the portal's Kafka principal/);
    assert.ok(denied.message.includes(`topic "${secured.aclDeniedTopic}"`), denied.message);
    assert.ok(denied.message.includes("User:sluice-portal (KAFKA_SASL_USERNAME)"), denied.message);
    assert.match(denied.message, /grant that principal DESCRIBE on the topic/);
    assert.ok(!denied.message.includes(secured.users["sluice-portal"]!), "no password in the message");
    assert.equal((await refusal({ path: `/${secured.aclDeniedTopic}/{id}` })).field, "path");

    const missing = await refusal({ path: `/portal-no-such-topic-${randomBytes(4).toString("hex")}/{id}` });
    assert.equal(missing.field, "path");
    assert.match(missing.message, /^Kafka has no topic named "portal-no-such-topic-/);

    const allowed = await define({ path: `/${topic}/{id}` });
    assert.equal(allowed.path, `/${topic}/{id}`);
  } finally {
    await deleteApi({ db, actor: editor, apiId: api.id });
  }
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
