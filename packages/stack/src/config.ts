// Where the local stack lives and listens. Two profiles: `dev` (the README's start
// command; data kept under .sluice/) and `test` (the test command; its own ports and
// data dir, so tests never touch a developer's data and can run beside a dev stack).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { KAFKA_SECURITY_VARIABLES } from "@sluice/kafka-settings";
import { RegistrySettingsError, loadRegistrySettings } from "@sluice/schema-registry";
import type { SecuredKafkaInfo } from "@sluice/kafka-settings/test-support/secured-kafka";
import { StackError } from "./errors.ts";

export const REPO_ROOT = path.resolve(fileURLToPath(new URL("../../..", import.meta.url)));

export type Profile = "dev" | "test";

export interface StackConfig {
  profile: Profile;
  repoRoot: string;
  /** Everything this profile writes: database files, Kafka logs, pids, binaries. */
  dataDir: string;
  /** Downloads shared by all profiles (Kafka jars). */
  cacheDir: string;
  host: string;
  ports: {
    portal: number;
    gateway: number;
    bridge: number;
    postgres: number;
    kafka: number;
    kafkaController: number;
    /** The test profile's SASL_SSL (SCRAM) listener on the local Kafka; default: kafka + 2. */
    kafkaSaslSsl: number;
    /** The test profile's mutual-TLS listener on the local Kafka; default: kafka + 3. */
    kafkaMtls: number;
    /** The test profile's SASL_SSL listener with OAUTHBEARER on the local Kafka; default: kafka + 4. */
    kafkaOauth: number;
    /** The local schema registry (Apicurio). */
    schemaRegistry: number;
    /** Its management interface (health, metrics); default: schemaRegistry + 1. */
    schemaRegistryManagement: number;
  };
  /** Set when DATABASE_URL points at an existing PostgreSQL; otherwise embedded. */
  externalDatabaseUrl?: string;
  /** Set when KAFKA_BROKERS points at an existing Kafka; otherwise a local broker. */
  externalKafkaBrokers?: string[];
  /** Set when SCHEMA_REGISTRY_URL points at an existing registry (its Confluent-compatible API); otherwise a local one. */
  externalSchemaRegistryUrl?: string;
  /** The java binary for the local Kafka (JAVA_HOME/bin/java, or java on PATH). */
  java: string;
}

const DEFAULT_PORTS: Record<Profile, StackConfig["ports"]> = {
  dev: {
    portal: 3000,
    gateway: 8080,
    bridge: 8090,
    postgres: 54320,
    kafka: 9092,
    kafkaController: 9093,
    kafkaSaslSsl: 0,
    kafkaMtls: 0,
    kafkaOauth: 0,
    schemaRegistry: 8081,
    schemaRegistryManagement: 0,
  },
  test: {
    portal: 3100,
    gateway: 8180,
    bridge: 8190,
    postgres: 54330,
    kafka: 19092,
    kafkaController: 19093,
    kafkaSaslSsl: 0,
    kafkaMtls: 0,
    kafkaOauth: 0,
    schemaRegistry: 18085,
    schemaRegistryManagement: 0,
  },
};

const PORT_ENV: Record<keyof StackConfig["ports"], string> = {
  portal: "SLUICE_PORTAL_PORT",
  gateway: "SLUICE_GATEWAY_PORT",
  bridge: "SLUICE_BRIDGE_PORT",
  postgres: "SLUICE_POSTGRES_PORT",
  kafka: "SLUICE_KAFKA_PORT",
  kafkaController: "SLUICE_KAFKA_CONTROLLER_PORT",
  kafkaSaslSsl: "SLUICE_KAFKA_SASL_SSL_PORT",
  kafkaMtls: "SLUICE_KAFKA_MTLS_PORT",
  kafkaOauth: "SLUICE_KAFKA_OAUTH_PORT",
  schemaRegistry: "SLUICE_SCHEMA_REGISTRY_PORT",
  schemaRegistryManagement: "SLUICE_SCHEMA_REGISTRY_MANAGEMENT_PORT",
};

function parsePort(name: string, raw: string): number {
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new StackError(`${name}=${raw} is not a port number (1-65535).`);
  }
  return port;
}

export function parseBrokers(raw: string): string[] {
  const brokers = raw
    .split(",")
    .map((b) => b.trim())
    .filter(Boolean);
  if (brokers.length === 0) throw new StackError("KAFKA_BROKERS is empty. Use host:port[,host:port...].");
  for (const b of brokers) {
    if (!/^[^\s:]+:\d{1,5}$/.test(b) || parsePort("KAFKA_BROKERS", b.split(":").pop()!) === 0) {
      throw new StackError(`KAFKA_BROKERS entry "${b}" is not host:port.`);
    }
  }
  return brokers;
}

/** The external registry's URL from the SCHEMA_REGISTRY_* settings (checked by their contract); undefined when unset. */
export function externalRegistryUrl(env: NodeJS.ProcessEnv): string | undefined {
  try {
    return loadRegistrySettings(env)?.url;
  } catch (err) {
    if (err instanceof RegistrySettingsError) throw new StackError(`Invalid schema registry settings: ${err.message}`);
    throw err;
  }
}

export function loadConfig(profile: Profile, env: NodeJS.ProcessEnv = process.env): StackConfig {
  const ports = { ...DEFAULT_PORTS[profile] };
  for (const [key, envName] of Object.entries(PORT_ENV) as [keyof typeof ports, string][]) {
    const raw = env[envName];
    if (raw) ports[key] = parsePort(envName, raw);
  }
  // The secured listeners follow the broker's port unless moved on their own, so
  // moving SLUICE_KAFKA_PORT moves every listener of the local Kafka.
  if (!env.SLUICE_KAFKA_SASL_SSL_PORT) ports.kafkaSaslSsl = ports.kafka + 2;
  if (!env.SLUICE_KAFKA_MTLS_PORT) ports.kafkaMtls = ports.kafka + 3;
  if (!env.SLUICE_KAFKA_OAUTH_PORT) ports.kafkaOauth = ports.kafka + 4;
  if (!env.SLUICE_SCHEMA_REGISTRY_MANAGEMENT_PORT) ports.schemaRegistryManagement = ports.schemaRegistry + 1;
  // The local Kafka speaks plaintext: security settings without KAFKA_BROKERS are
  // a forgotten KAFKA_BROKERS, not a request to secure the local broker.
  const security = KAFKA_SECURITY_VARIABLES.find((name) => env[name]?.trim());
  if (profile === "dev" && !env.KAFKA_BROKERS && security) {
    throw new StackError(
      `${security} is set but KAFKA_BROKERS is not: the Kafka security settings are for an external Kafka. ` +
        "Set KAFKA_BROKERS to its brokers, or unset the KAFKA_SECURITY_PROTOCOL, KAFKA_TLS_* and KAFKA_SASL_* variables to use the local Kafka.",
    );
  }
  const dataDir = path.resolve(REPO_ROOT, env.SLUICE_DATA_DIR ?? path.join(".sluice", profile));
  const javaHome = env.JAVA_HOME;
  return {
    profile,
    repoRoot: REPO_ROOT,
    dataDir,
    cacheDir: path.join(REPO_ROOT, ".sluice", "cache"),
    host: "127.0.0.1",
    ports,
    // The test profile always starts its own PostgreSQL and Kafka so tests are hermetic.
    externalDatabaseUrl: profile === "dev" ? env.DATABASE_URL || undefined : undefined,
    externalKafkaBrokers: profile === "dev" && env.KAFKA_BROKERS ? parseBrokers(env.KAFKA_BROKERS) : undefined,
    externalSchemaRegistryUrl: profile === "dev" ? externalRegistryUrl(env) : undefined,
    java: env.SLUICE_JAVA ?? (javaHome ? path.join(javaHome, "bin", "java") : "java"),
  };
}

/** Where and how tests reach the test profile's secured listeners (stack.json). */
export type { SecuredKafkaInfo };

export interface StackUrls {
  portal: string;
  gateway: string;
  bridge: string;
  databaseUrl: string;
  kafkaBrokers: string[];
  /** The test profile's secured listeners, when they run. */
  securedKafka?: SecuredKafkaInfo;
  /** The schema registry's Confluent-compatible API (SCHEMA_REGISTRY_URL of the services). */
  schemaRegistryUrl: string;
  /** The one-time link that creates the first admin, while none exists. */
  setupUrl?: string;
}
