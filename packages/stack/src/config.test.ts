import assert from "node:assert/strict";
import net from "node:net";
import { test } from "node:test";
import { loadConfig, parseBrokers } from "./config.ts";
import { redactUrl } from "./errors.ts";
import { newClusterId } from "./kafka.ts";
import { assertPortsFree, portsToOpen } from "./preflight.ts";
import { processStartTime } from "./supervisor.ts";

test("profiles have distinct default ports so a test run can sit beside a dev stack", () => {
  const dev = Object.values(loadConfig("dev", {}).ports);
  const testPorts = Object.values(loadConfig("test", {}).ports);
  assert.equal(new Set([...dev, ...testPorts]).size, dev.length + testPorts.length);
});

test("port variables override defaults and bad ones are named", () => {
  assert.equal(loadConfig("dev", { SLUICE_PORTAL_PORT: "4000" }).ports.portal, 4000);
  assert.throws(() => loadConfig("dev", { SLUICE_GATEWAY_PORT: "http" }), /SLUICE_GATEWAY_PORT=http is not a port/);
  assert.throws(() => loadConfig("dev", { SLUICE_KAFKA_PORT: "70000" }), /SLUICE_KAFKA_PORT/);
});

test("DATABASE_URL and KAFKA_BROKERS select external services in dev only", () => {
  const env = { DATABASE_URL: "postgres://a@b/c", KAFKA_BROKERS: "k1:9092,k2:9092" };
  const dev = loadConfig("dev", env);
  assert.equal(dev.externalDatabaseUrl, "postgres://a@b/c");
  assert.deepEqual(dev.externalKafkaBrokers, ["k1:9092", "k2:9092"]);
  assert.deepEqual(portsToOpen(dev), ["portal", "gateway", "bridge", "schemaRegistry", "schemaRegistryManagement"]);
  const testProfile = loadConfig("test", env);
  assert.equal(testProfile.externalDatabaseUrl, undefined);
  assert.equal(testProfile.externalKafkaBrokers, undefined);
});

test("SCHEMA_REGISTRY_URL selects an external registry in dev only, and must be an http(s) URL", () => {
  const env = { SCHEMA_REGISTRY_URL: "https://registry.example.com/apis/ccompat/v7/" };
  const dev = loadConfig("dev", env);
  assert.equal(dev.externalSchemaRegistryUrl, "https://registry.example.com/apis/ccompat/v7");
  assert.ok(!portsToOpen(dev).includes("schemaRegistry") && !portsToOpen(dev).includes("schemaRegistryManagement"));
  assert.ok(portsToOpen(loadConfig("dev", {})).includes("schemaRegistry"));
  assert.equal(loadConfig("test", env).externalSchemaRegistryUrl, undefined);
  // The settings' own rules (packages/protocol/vectors/registry-settings.json), named as such.
  assert.throws(
    () => loadConfig("dev", { SCHEMA_REGISTRY_URL: "not a url" }),
    /Invalid schema registry settings: SCHEMA_REGISTRY_URL: is not a URL/,
  );
  assert.throws(
    () => loadConfig("dev", { SCHEMA_REGISTRY_URL: "https://u:s3cret@registry.example.com" }),
    (err: Error) => /SCHEMA_REGISTRY_URL: must not contain credentials/.test(err.message) && !err.message.includes("s3cret"),
  );
  assert.throws(
    () => loadConfig("dev", { SCHEMA_REGISTRY_BEARER_TOKEN: "t" }),
    /SCHEMA_REGISTRY_URL: is required with SCHEMA_REGISTRY_BEARER_TOKEN/,
  );
  // The test profile is hermetic: the launcher's registry settings are not read.
  assert.equal(loadConfig("test", { SCHEMA_REGISTRY_BEARER_TOKEN: "t" }).externalSchemaRegistryUrl, undefined);
});

test("parseBrokers accepts host:port lists and names a bad entry", () => {
  assert.deepEqual(parseBrokers(" a:1 , b:2 "), ["a:1", "b:2"]);
  assert.throws(() => parseBrokers("a:1,nohost"), /"nohost" is not host:port/);
  assert.throws(() => parseBrokers(" , "), /KAFKA_BROKERS is empty/);
});

test("redactUrl hides the password and only the password", () => {
  assert.equal(redactUrl("postgres://u:secret@h:5432/db"), "postgres://u:***@h:5432/db");
  assert.equal(redactUrl("postgres://u@h/db"), "postgres://u@h/db");
  assert.equal(redactUrl("not a url"), "(unparseable URL)");
});

test("assertPortsFree names the busy port, its owner and the variable to change", async () => {
  const blocker = net.createServer().listen(0, "127.0.0.1");
  await new Promise((r) => blocker.once("listening", r));
  const port = (blocker.address() as net.AddressInfo).port;
  try {
    const config = loadConfig("test", { SLUICE_BRIDGE_PORT: String(port) });
    await assert.rejects(assertPortsFree(config), new RegExp(`port ${port} \\(the bridge; set SLUICE_BRIDGE_PORT`));
  } finally {
    blocker.close();
  }
});

test("processStartTime identifies a live process and nothing for a dead one", () => {
  assert.match(processStartTime(process.pid) ?? "", /^\d+$/);
  assert.equal(processStartTime(2 ** 22 + 1), undefined);
});

test("Kafka security settings without KAFKA_BROKERS stop the dev profile, naming the variable; the test profile ignores them", () => {
  assert.throws(
    () => loadConfig("dev", { KAFKA_SECURITY_PROTOCOL: "SASL_SSL", KAFKA_SASL_PASSWORD: "pw-9012" }),
    (err: Error) => /^KAFKA_SECURITY_PROTOCOL is set but KAFKA_BROKERS is not/.test(err.message) && !err.message.includes("pw-9012"),
  );
  assert.ok(loadConfig("dev", { KAFKA_BROKERS: "k:9093", KAFKA_SECURITY_PROTOCOL: "SSL" }).externalKafkaBrokers);
  assert.equal(loadConfig("test", { KAFKA_SECURITY_PROTOCOL: "SSL" }).externalKafkaBrokers, undefined);
});

test("a new Kafka cluster id never starts with '-' (the storage tool would take it for an option)", () => {
  for (let i = 0; i < 2000; i++) {
    const id = newClusterId();
    assert.match(id, /^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
  }
});
