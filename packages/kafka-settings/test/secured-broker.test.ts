// The settings against the test stack's real secured listeners (SASL_SSL with
// SCRAM-SHA-512, mutual TLS, SASL_SSL with OAUTHBEARER and the test issuer's
// client-credentials tokens, the StandardAuthorizer's ACLs): every client the
// TypeScript components build connects, and every misconfiguration fails within
// 15 s with the one variable to fix. SLUICE_TEST_SECURED_KAFKA is the stack's
// description of those listeners (stack.json's securedKafka, set by the test runner).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, test } from "node:test";
import { Kafka, logLevel } from "kafkajs";
import { describeKafkaError, type Env, explainKafkaError, kafkaClientConfig, loadKafkaSettings } from "../src/index.ts";
import { mtlsSettings, oauthSettings, scramSettings, securedKafkaFromEnv } from "../test-support/secured-kafka.ts";

const secured = securedKafkaFromEnv();
const plaintextBrokers = (process.env.KAFKA_BROKERS ?? "").split(",").filter(Boolean);
assert.ok(plaintextBrokers.length > 0, "KAFKA_BROKERS (the plaintext listener) is not set");

const scram = (user: string, password?: string): Env => scramSettings(secured, user, password);
const mtls: Env = mtlsSettings(secured);
const oauth = (client?: string, secret?: string): Env => oauthSettings(secured, client, secret);

function client(brokers: string[], env: Env): Kafka {
  return new Kafka({
    clientId: "sluice-secured-test",
    brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 5000,
    requestTimeout: 10_000,
    retry: { retries: 0 },
    ...kafkaClientConfig(loadKafkaSettings(env)),
  });
}

/** Produces one record to a new topic and reads it back, all as the given client. */
async function roundTrip(kafka: Kafka): Promise<void> {
  const topic = `secured-${randomBytes(4).toString("hex")}`;
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    await producer.send({ topic, acks: -1, messages: [{ key: "k", value: "over a secured listener" }] });
    await producer.disconnect();
    const offsets = await admin.fetchTopicOffsets(topic);
    assert.equal(offsets[0]?.high, "1");
  } finally {
    await admin.deleteTopics({ topics: [topic] }).catch(() => {});
    await admin.disconnect();
  }
}

/** Connects with env to brokers and returns the variable the failure is traced to, and how long it took. */
async function failure(brokers: string[], env: Env): Promise<{ variable?: string; message: string; ms: number }> {
  const settings = loadKafkaSettings(env);
  const admin = client(brokers, env).admin();
  const started = Date.now();
  try {
    await admin.connect();
    await admin.listTopics();
  } catch (err) {
    const problem = explainKafkaError(err, settings);
    return { variable: problem?.variable, message: describeKafkaError(err, settings), ms: Date.now() - started };
  } finally {
    await admin.disconnect().catch(() => {});
  }
  assert.fail("the connection was expected to fail");
}

describe("secured listeners of a real broker", () => {
  for (const user of Object.keys(secured.users)) {
    test(`SASL_SSL with SCRAM-SHA-512 as ${user}: create a topic, produce with acks=all, read the offsets`, async () => {
      await roundTrip(client(secured.saslSslBrokers, scram(user)));
    });
  }

  test("mutual TLS with the client certificate: create a topic, produce, read the offsets", async () => {
    await roundTrip(client(secured.mtlsBrokers, mtls));
  });

  test("SASL_SSL with OAUTHBEARER, a client-credentials token from the issuer: create a topic, produce, read the offsets", async () => {
    await roundTrip(client(secured.oauthBrokers, oauth()));
  });

  for (const user of secured.deniedUsers) {
    test(`the ACLs deny ${user} one topic (and only that one)`, async () => {
      const producer = client(secured.saslSslBrokers, scram(user)).producer({ allowAutoTopicCreation: false });
      await producer.connect();
      try {
        await assert.rejects(
          producer.send({ topic: secured.aclDeniedTopic, messages: [{ value: "x" }] }),
          (err: Error & { type?: string }) => {
            assert.match(`${err.message} ${err.type ?? ""}`, /TOPIC_AUTHORIZATION_FAILED|not authorized to access/i);
            return true;
          },
        );
      } finally {
        await producer.disconnect();
      }
    });
  }

  test("the bridge's user may use the denied topic", async () => {
    const bridge = client(secured.saslSslBrokers, scram("sluice-bridge")).producer({ allowAutoTopicCreation: false });
    await bridge.connect();
    await bridge.send({ topic: secured.aclDeniedTopic, messages: [{ value: "allowed" }] });
    await bridge.disconnect();
  });
});

describe("each misconfiguration names the setting to fix, within 15 s", () => {
  const cases: [string, () => Promise<{ variable?: string; message: string; ms: number }>, string][] = [
    ["a wrong password", () => failure(secured.saslSslBrokers, scram("sluice-bridge", "not-the-password")), "KAFKA_SASL_PASSWORD"],
    [
      "a mechanism the listener does not offer",
      () => failure(secured.saslSslBrokers, { ...scram("sluice-bridge"), KAFKA_SASL_MECHANISM: "SCRAM-SHA-256" }),
      "KAFKA_SASL_MECHANISM",
    ],
    [
      "a CA that did not sign the broker's certificate",
      () => failure(secured.saslSslBrokers, { ...scram("sluice-bridge"), KAFKA_TLS_CA_FILE: secured.untrustedCaFile }),
      "KAFKA_TLS_CA_FILE",
    ],
    [
      "a server name the certificate does not carry",
      () => failure(secured.saslSslBrokers, { ...scram("sluice-bridge"), KAFKA_TLS_SERVER_NAME: "kafka.example.com" }),
      "KAFKA_TLS_SERVER_NAME",
    ],
    ["plaintext spoken to the TLS listener", () => failure(secured.saslSslBrokers, {}), "KAFKA_SECURITY_PROTOCOL"],
    ["TLS spoken to the plaintext listener", () => failure(plaintextBrokers, scram("sluice-bridge")), "KAFKA_SECURITY_PROTOCOL"],
    [
      "no client certificate on the mutual-TLS listener",
      () => failure(secured.mtlsBrokers, { KAFKA_SECURITY_PROTOCOL: "SSL", KAFKA_TLS_CA_FILE: secured.caFile }),
      "KAFKA_TLS_CERT_FILE",
    ],
    [
      "a client certificate from a CA the broker does not trust",
      () =>
        failure(secured.mtlsBrokers, {
          ...mtls,
          KAFKA_TLS_CERT_FILE: secured.untrustedClientCertFile,
          KAFKA_TLS_KEY_FILE: secured.untrustedClientKeyFile,
        }),
      "KAFKA_TLS_CERT_FILE",
    ],
    [
      "an expired client certificate",
      () =>
        failure(secured.mtlsBrokers, {
          ...mtls,
          KAFKA_TLS_CERT_FILE: secured.expiredClientCertFile,
          KAFKA_TLS_KEY_FILE: secured.expiredClientKeyFile,
        }),
      "KAFKA_TLS_CERT_FILE",
    ],
    [
      "an OAuth client secret the token endpoint refuses",
      () => failure(secured.oauthBrokers, oauth(secured.oauthClient, "not-the-secret")),
      "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET",
    ],
    [
      "an OAuth token the broker refuses (issued for another cluster)",
      () => failure(secured.oauthBrokers, oauth(secured.oauthForeignClient)),
      "KAFKA_SASL_OAUTHBEARER_CLIENT_ID",
    ],
    [
      "a token endpoint that is not there",
      () => failure(secured.oauthBrokers, { ...oauth(), KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL: "http://127.0.0.1:9/token" }),
      "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL",
    ],
    ["OAUTHBEARER spoken to the SCRAM listener", () => failure(secured.saslSslBrokers, oauth()), "KAFKA_SASL_MECHANISM"],
  ];
  for (const [what, run, variable] of cases) {
    test(`${what}: ${variable}`, async () => {
      const got = await run();
      assert.equal(got.variable, variable, `traced to ${got.variable}: ${got.message}`);
      assert.ok(got.message.includes(variable), `the message names ${variable}: ${got.message}`);
      assert.ok(got.ms < 15_000, `took ${got.ms} ms`);
      for (const secret of [...Object.values(secured.users), ...Object.values(secured.oauthClients)]) {
        assert.ok(!got.message.includes(secret), "no password or client secret in the message");
      }
    });
  }
});
