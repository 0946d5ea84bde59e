import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError, loadConfig } from "./config.ts";

const base = { DATABASE_URL: "postgres://u:p@127.0.0.1:5432/sluice" };

test("defaults to loopback and the local Kafka", () => {
  const cfg = loadConfig(base);
  assert.equal(cfg.host, "127.0.0.1");
  assert.equal(cfg.port, 8090);
  assert.deepEqual(cfg.kafkaBrokers, ["127.0.0.1:9092"]);
});

test("reads the address and brokers from the environment", () => {
  const cfg = loadConfig({ ...base, SLUICE_BRIDGE_ADDR: "0.0.0.0:9000", KAFKA_BROKERS: "a:1, b:2" });
  assert.equal(cfg.host, "0.0.0.0");
  assert.equal(cfg.port, 9000);
  assert.deepEqual(cfg.kafkaBrokers, ["a:1", "b:2"]);
});

test("names the bad variable", () => {
  assert.throws(
    () => loadConfig({ ...base, SLUICE_BRIDGE_ADDR: "nope" }),
    (e: Error) => e instanceof ConfigError && /SLUICE_BRIDGE_ADDR/.test(e.message),
  );
  assert.throws(() => loadConfig({ ...base, KAFKA_BROKERS: "host-without-port" }), /KAFKA_BROKERS/);
  assert.throws(() => loadConfig({}), /DATABASE_URL is not set/);
});

test("catalog topic and sweep interval default to the gateway's topic and 30 s", () => {
  const cfg = loadConfig(base);
  assert.equal(cfg.catalogTopic, "__sluice_catalog");
  assert.equal(cfg.sweepSeconds, 30);
  assert.equal(cfg.outboxRetentionDays, 7);
  assert.equal(cfg.leaseSeconds, 15);
  const custom = loadConfig({ ...base, SLUICE_CATALOG_TOPIC: "my.catalog", SLUICE_BRIDGE_SWEEP_SECONDS: "3600" });
  assert.equal(custom.catalogTopic, "my.catalog");
  assert.equal(custom.sweepSeconds, 3600);
});

test("rejects a bad topic name or sweep interval, naming the variable", () => {
  assert.throws(() => loadConfig({ ...base, SLUICE_CATALOG_TOPIC: "bad topic" }), /SLUICE_CATALOG_TOPIC/);
  assert.throws(() => loadConfig({ ...base, SLUICE_CATALOG_TOPIC: ".." }), /SLUICE_CATALOG_TOPIC/);
  assert.throws(() => loadConfig({ ...base, SLUICE_BRIDGE_SWEEP_SECONDS: "0" }), /SLUICE_BRIDGE_SWEEP_SECONDS/);
  assert.throws(() => loadConfig({ ...base, SLUICE_BRIDGE_SWEEP_SECONDS: "soon" }), /SLUICE_BRIDGE_SWEEP_SECONDS/);
  assert.throws(() => loadConfig({ ...base, SLUICE_BRIDGE_OUTBOX_RETENTION_DAYS: "-1" }), /SLUICE_BRIDGE_OUTBOX_RETENTION_DAYS/);
});

test("Kafka security settings: none means plaintext; a bad one is a ConfigError naming the variable, never the secret", () => {
  assert.deepEqual(loadConfig(base).kafka, { protocol: "PLAINTEXT" });
  const scram = loadConfig({
    ...base,
    KAFKA_SECURITY_PROTOCOL: "SASL_SSL",
    KAFKA_SASL_MECHANISM: "SCRAM-SHA-512",
    KAFKA_SASL_USERNAME: "bridge",
    KAFKA_SASL_PASSWORD: "pw-1234",
  });
  assert.equal(scram.kafka.sasl?.mechanism, "SCRAM-SHA-512");
  assert.throws(
    () => loadConfig({ ...base, KAFKA_SECURITY_PROTOCOL: "SASL_SSL", KAFKA_SASL_USERNAME: "bridge", KAFKA_SASL_PASSWORD: "pw-1234" }),
    (e: Error) => e instanceof ConfigError && /^KAFKA_SASL_MECHANISM: /.test(e.message) && !e.message.includes("pw-1234"),
  );
});

test("usage topic: the gateway's default, named by SLUICE_USAGE_TOPIC, never the catalog topic", () => {
  const cfg = loadConfig(base);
  assert.equal(cfg.usageTopic, "__sluice_usage");
  assert.equal(cfg.usageRetentionSweepSeconds, 3600);
  assert.equal(cfg.testKillAfterUsageRecords, undefined);
  assert.equal(loadConfig({ ...base, SLUICE_USAGE_TOPIC: "my.usage" }).usageTopic, "my.usage");
  assert.throws(() => loadConfig({ ...base, SLUICE_USAGE_TOPIC: "bad topic" }), /SLUICE_USAGE_TOPIC/);
  assert.throws(() => loadConfig({ ...base, SLUICE_USAGE_TOPIC: "__sluice_catalog" }), /SLUICE_USAGE_TOPIC: must differ/);
  assert.throws(() => loadConfig({ ...base, SLUICE_USAGE_RETENTION_SWEEP_SECONDS: "0" }), /SLUICE_USAGE_RETENTION_SWEEP_SECONDS/);
});

test("the lease is at least 3 s, naming the variable", () => {
  assert.equal(loadConfig({ ...base, SLUICE_BRIDGE_LEASE_SECONDS: "6" }).leaseSeconds, 6);
  assert.throws(() => loadConfig({ ...base, SLUICE_BRIDGE_LEASE_SECONDS: "2" }), /SLUICE_BRIDGE_LEASE_SECONDS/);
  assert.throws(() => loadConfig({ ...base, SLUICE_BRIDGE_LEASE_SECONDS: "soon" }), /SLUICE_BRIDGE_LEASE_SECONDS/);
});
