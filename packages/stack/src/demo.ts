// Local mode's demo (DESIGN.md, "Embedded defaults"): when the launcher runs its
// own Kafka for the dev profile, it creates a small topic, feeds it from a
// supervised process (demo-feeder.ts) and lets the portal's prepare step document
// it as an API on an empty catalog. SLUICE_DEMO=0 turns it off; the test profile
// and external Kafka never get it. With the local schema registry too, a second
// topic carries Avro orders in the registry's wire format (demo-avro-feeder.ts),
// documented as an avro endpoint of the same API.
import path from "node:path";
import { Kafka, logLevel } from "kafkajs";
import type { StackConfig } from "./config.ts";
import type { Supervisor } from "./supervisor.ts";

export const DEMO_TOPIC = "demo-vehicles";
export const DEMO_AVRO_TOPIC = "demo-orders-avro";
/** The topic strategy's subjects of a topic: what a Kafka Avro serializer registers by default. */
export const demoAvroSubject = (topic: string) => `${topic}-value`;
export const demoAvroKeySubject = (topic: string) => `${topic}-key`;
/** The demo orders' keys, the customer ids, are Avro strings. */
export const DEMO_KEY_SCHEMA = "string";

/** The demo orders' Avro schema: a few of the types whose JSON docs/payload-formats.md documents (enum, union, timestamp). */
export const DEMO_ORDER_SCHEMA = {
  type: "record",
  name: "Order",
  namespace: "sluice.demo",
  doc: "An order placed in the simulated shop of ./sluice start",
  fields: [
    { name: "orderId", type: "string" },
    { name: "customer", type: "string", doc: "The record key" },
    { name: "item", type: "string" },
    { name: "quantity", type: "int" },
    { name: "unitPrice", type: "double" },
    { name: "status", type: { type: "enum", name: "OrderStatus", symbols: ["PLACED", "PAID", "SHIPPED"] } },
    { name: "placedAt", type: { type: "long", logicalType: "timestamp-millis" } },
    { name: "note", type: ["null", "string"], default: null },
  ],
} as const;

export function demoEnabled(config: StackConfig, env: NodeJS.ProcessEnv = process.env): boolean {
  return config.profile === "dev" && !config.externalKafkaBrokers && env.SLUICE_DEMO !== "0";
}

/**
 * The Avro demo runs only with the local registry as well: it registers a schema,
 * which an operator's own registry should not get from a demo (and the local one
 * needs no credentials).
 */
export function demoAvroEnabled(config: StackConfig): boolean {
  return !config.externalSchemaRegistryUrl;
}

/**
 * Creates the demo topics (3 partitions) unless they exist; only on the local,
 * plaintext Kafka (demoEnabled). `avro`: the Avro demo's topic too.
 */
export async function ensureDemoTopic(brokers: string[], { avro = false }: { avro?: boolean } = {}): Promise<void> {
  const admin = new Kafka({ clientId: "sluice-stack", brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const existing = await admin.listTopics();
    const missing = [DEMO_TOPIC, ...(avro ? [DEMO_AVRO_TOPIC] : [])].filter((topic) => !existing.includes(topic));
    if (missing.length) {
      await admin.createTopics({ topics: missing.map((topic) => ({ topic, numPartitions: 3 })), waitForLeaders: true });
    }
  } finally {
    await admin.disconnect();
  }
}

/**
 * Registers the demo orders' schemas through the registry's REST API (the
 * Confluent-compatible one) under the topic's subjects, as Kafka's Avro
 * serializers would: the order under `<topic>-value`, and the key, the
 * customer as an Avro string, under `<topic>-key`. Returns their ids. The
 * registry answers the same id for the same schema, so the launcher (before
 * the portal's prepare step checks the subjects) and the feeder may both call it.
 */
export async function registerDemoAvroSchemas(
  registryUrl: string,
  topic: string = DEMO_AVRO_TOPIC,
): Promise<{ value: number; key: number }> {
  return {
    value: await registerAvroSchema(registryUrl, demoAvroSubject(topic), DEMO_ORDER_SCHEMA),
    key: await registerAvroSchema(registryUrl, demoAvroKeySubject(topic), DEMO_KEY_SCHEMA),
  };
}

async function registerAvroSchema(registryUrl: string, subject: string, schema: unknown): Promise<number> {
  const res = await fetch(`${registryUrl}/subjects/${encodeURIComponent(subject)}/versions`, {
    method: "POST",
    headers: { "Content-Type": "application/vnd.schemaregistry.v1+json", Accept: "application/json" },
    body: JSON.stringify({ schemaType: "AVRO", schema: JSON.stringify(schema) }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json().catch(() => null)) as { id?: unknown; message?: unknown } | null;
  if (!res.ok || typeof body?.id !== "number") {
    throw new Error(`the registry refused the demo schema for ${subject} (HTTP ${res.status}: ${String(body?.message ?? "")})`);
  }
  return body.id;
}

/**
 * Runs demo-feeder.ts; env is the stack's (stackEnv) with SLUICE_DEMO_TOPIC. With
 * SLUICE_DEMO_AVRO_TOPIC in env, demo-avro-feeder.ts too, as the `demo-avro` service.
 */
export function startDemoFeeder(config: StackConfig, supervisor: Supervisor, env: NodeJS.ProcessEnv): void {
  supervisor.start({
    name: "demo",
    command: process.execPath,
    args: ["--import", "tsx", path.join(import.meta.dirname, "demo-feeder.ts")],
    cwd: config.repoRoot,
    env,
  });
  if (env.SLUICE_DEMO_AVRO_TOPIC) {
    supervisor.start({
      name: "demo-avro",
      command: process.execPath,
      args: ["--import", "tsx", path.join(import.meta.dirname, "demo-avro-feeder.ts")],
      cwd: config.repoRoot,
      env,
    });
  }
}
