import assert from "node:assert/strict";
import { test } from "node:test";
import { loadConfig } from "./config.ts";
import { stackEnv } from "./stack-env.ts";

test("stackEnv gives a child the stack's addresses, whatever the launcher's own environment says", () => {
  const config = loadConfig("dev", {
    SLUICE_PORTAL_PORT: "3400",
    SLUICE_GATEWAY_PORT: "8480",
    SLUICE_BRIDGE_PORT: "8490",
    SLUICE_KAFKA_PORT: "19192",
  });
  const saved = { ...process.env };
  Object.assign(process.env, {
    KAFKA_BROKERS: "127.0.0.1:9092",
    DATABASE_URL: "postgres://elsewhere/db",
    SLUICE_GATEWAY_ADDR: "127.0.0.1:8080",
  });
  try {
    const env = stackEnv(
      config,
      {
        databaseUrl: "postgres://u:p@127.0.0.1:15450/sluice",
        kafkaBrokers: ["127.0.0.1:19192"],
        schemaRegistryUrl: "http://127.0.0.1:18181/apis/ccompat/v7",
      },
      { SLUICE_SECRET_KEY: "k" },
    );
    assert.equal(env.KAFKA_BROKERS, "127.0.0.1:19192");
    assert.equal(env.SCHEMA_REGISTRY_URL, "http://127.0.0.1:18181/apis/ccompat/v7");
    assert.equal(env.DATABASE_URL, "postgres://u:p@127.0.0.1:15450/sluice");
    assert.equal(env.SLUICE_GATEWAY_ADDR, "127.0.0.1:8480");
    assert.equal(env.SLUICE_BRIDGE_ADDR, "127.0.0.1:8490");
    assert.equal(env.SLUICE_GATEWAY_HEALTH_URL, "http://127.0.0.1:8480/healthz");
    assert.equal(env.SLUICE_BRIDGE_HEALTH_URL, "http://127.0.0.1:8490/healthz");
    assert.equal(env.SLUICE_PORTAL_PUBLIC_URL, "http://127.0.0.1:3400");
    assert.equal(env.SLUICE_GATEWAY_PUBLIC_URL, "http://127.0.0.1:8480");
    assert.equal(env.SLUICE_SECRET_KEY, "k");
    process.env.SLUICE_GATEWAY_PUBLIC_URL = "https://gw.example.com";
    assert.equal(
      stackEnv(config, { databaseUrl: "x", kafkaBrokers: ["b:1"], schemaRegistryUrl: "r" }).SLUICE_GATEWAY_PUBLIC_URL,
      "https://gw.example.com",
      "a public URL behind a proxy may be set explicitly",
    );
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
});

test("stackEnv passes the Kafka security settings on for an external Kafka only", () => {
  const saved = { ...process.env };
  Object.assign(process.env, { KAFKA_SECURITY_PROTOCOL: "SASL_SSL", KAFKA_SASL_MECHANISM: "PLAIN", KAFKA_TLS_CA_FILE: "/ca.pem" });
  try {
    const infra = { databaseUrl: "x", kafkaBrokers: ["k:9093"], schemaRegistryUrl: "r" };
    const external = stackEnv(loadConfig("dev", { KAFKA_BROKERS: "k:9093" }), infra);
    assert.equal(external.KAFKA_SECURITY_PROTOCOL, "SASL_SSL");
    assert.equal(external.KAFKA_TLS_CA_FILE, "/ca.pem");
    const local = stackEnv(loadConfig("test", {}), infra);
    assert.equal(local.KAFKA_SECURITY_PROTOCOL, undefined);
    assert.equal(local.KAFKA_SASL_MECHANISM, undefined);
    assert.equal(local.KAFKA_TLS_CA_FILE, undefined);
  } finally {
    for (const name of ["KAFKA_SECURITY_PROTOCOL", "KAFKA_SASL_MECHANISM", "KAFKA_TLS_CA_FILE"]) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  }
});
