// The one place where the stack's addresses become environment variables. Every
// step and service the launcher runs once PostgreSQL and Kafka are up (the
// portal's prepare step, the gateway, the bridge, the portal, the demo feeder)
// gets its environment from stackEnv, so none of them can fall back to a default
// address (127.0.0.1:9092, :5432, :8080) when the stack listens elsewhere.
import { KAFKA_SECURITY_VARIABLES } from "@sluice/kafka-settings";
import { SCHEMA_REGISTRY_VARIABLES } from "@sluice/schema-registry";
import type { StackConfig } from "./config.ts";

/** Where the stack's PostgreSQL and Kafka are: embedded/local, or external. */
export interface Infra {
  databaseUrl: string;
  kafkaBrokers: string[];
  /** The registry's Confluent-compatible API. */
  schemaRegistryUrl: string;
}

export const serviceUrl = (config: StackConfig, port: number) => `http://${config.host}:${port}`;

/**
 * stackEnv is the environment of a child the launcher runs for the stack: the
 * launcher's own environment, overridden by where this stack's PostgreSQL,
 * Kafka, gateway, bridge and portal are. Each service reads the variables it
 * knows and ignores the rest. The public URLs are the only settings an explicit
 * variable may override (a proxy in front of the stack). `extra` adds what only
 * one child should see (the portal's secret key, the demo topic). The Kafka
 * security settings (KAFKA_SECURITY_PROTOCOL, KAFKA_TLS_*, KAFKA_SASL_*) pass on
 * only for an external Kafka: the stack's own Kafka speaks plaintext, and the test
 * profile stays hermetic whatever the launcher's environment holds.
 */
export function stackEnv(config: StackConfig, infra: Infra, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const inherited = { ...process.env };
  if (!config.externalKafkaBrokers) for (const name of KAFKA_SECURITY_VARIABLES) delete inherited[name];
  // Likewise the registry's credentials and TLS files are for an external registry only.
  if (!config.externalSchemaRegistryUrl) for (const name of SCHEMA_REGISTRY_VARIABLES) delete inherited[name];
  return {
    ...inherited,
    DATABASE_URL: infra.databaseUrl,
    KAFKA_BROKERS: infra.kafkaBrokers.join(","),
    SCHEMA_REGISTRY_URL: infra.schemaRegistryUrl,
    KAFKAJS_NO_PARTITIONER_WARNING: "1",
    // The portal offers topic creation with the stack's own Kafka only (unless SLUICE_TOPIC_CREATION says otherwise).
    SLUICE_KAFKA_MODE: config.externalKafkaBrokers ? "external" : "local",
    SLUICE_GATEWAY_ADDR: `${config.host}:${config.ports.gateway}`,
    SLUICE_BRIDGE_ADDR: `${config.host}:${config.ports.bridge}`,
    SLUICE_GATEWAY_HEALTH_URL: `${serviceUrl(config, config.ports.gateway)}/healthz`,
    SLUICE_BRIDGE_HEALTH_URL: `${serviceUrl(config, config.ports.bridge)}/healthz`,
    SLUICE_PORTAL_PUBLIC_URL: process.env.SLUICE_PORTAL_PUBLIC_URL ?? serviceUrl(config, config.ports.portal),
    SLUICE_GATEWAY_PUBLIC_URL: process.env.SLUICE_GATEWAY_PUBLIC_URL ?? serviceUrl(config, config.ports.gateway),
    ...extra,
  };
}
