// Fixtures for the usage aggregator's integration tests: records made exactly
// per the usage contract (docs/usage.md), produced to a scratch usage
// topic with the node id as the key, as a gateway node does.
import { randomUUID } from "node:crypto";
import { after, afterEach } from "node:test";
import { Partitioners } from "kafkajs";
import { deleteTopic, kafka, killAllBridges, scratchDatabase, scratchTopic, startBridgeProcess, type ScratchDb } from "./helpers.ts";

export interface EndpointEntry {
  endpoint: string;
  path: string;
  subscriptions: number;
  delivered: number;
  delivered_bytes: number;
  published: number;
  published_bytes: number;
  errors: number;
  refused: { subscriptions: number; publish: number; delivered: number };
}
export interface AppEntry {
  app: string;
  connections: number;
  refused: { connections: number };
  endpoints: EndpointEntry[];
}
export interface UsageRecordValue {
  v: 1;
  node: string;
  version: string;
  started_at: number;
  interval_start: number;
  interval_end: number;
  final: boolean;
  catalog_offset_lag: number;
  connections: number;
  apps: AppEntry[];
}

export const newId = () => randomUUID();

/** A node's consecutive records: contiguous intervals of intervalMs from `from`. */
export function nodeRecords(options: {
  node: string;
  from: number;
  intervalMs?: number;
  count: number;
  apps: (i: number) => AppEntry[];
  finalLast?: boolean;
}): UsageRecordValue[] {
  const step = options.intervalMs ?? 5000;
  const records: UsageRecordValue[] = [];
  for (let i = 0; i < options.count; i++) {
    const apps = options.apps(i);
    records.push({
      v: 1,
      node: options.node,
      version: "0.1.0-test",
      started_at: options.from - 1000,
      interval_start: options.from + i * step,
      interval_end: options.from + (i + 1) * step,
      final: options.finalLast === true && i === options.count - 1,
      catalog_offset_lag: i % 3,
      connections: apps.reduce((n, a) => n + a.connections, 0),
      apps,
    });
  }
  return records;
}

export function endpointEntry(endpoint: string, seed: number, path = "/prices/{symbol}"): EndpointEntry {
  return {
    endpoint,
    path,
    subscriptions: 1 + (seed % 4),
    delivered: 100 + seed,
    delivered_bytes: 3000 + seed * 7,
    published: seed % 5,
    published_bytes: (seed % 5) * 40,
    errors: seed % 2,
    refused: { subscriptions: seed % 3, publish: (seed + 1) % 3, delivered: seed % 4 },
  };
}

/** Produces values (objects as JSON, strings and Buffers as they are) keyed by node. */
export async function produceUsage(
  topic: string,
  records: Array<{ key: string; value: UsageRecordValue | string | Buffer }>,
): Promise<void> {
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  try {
    await producer.send({
      topic,
      acks: -1,
      messages: records.map((r) => ({
        key: r.key,
        value: typeof r.value === "string" || Buffer.isBuffer(r.value) ? r.value : JSON.stringify(r.value),
      })),
    });
  } finally {
    await producer.disconnect();
  }
}

export const asRecords = (values: UsageRecordValue[]) => values.map((value) => ({ key: value.node, value }));

/** A scratch database and usage topic per test, dropped (with every bridge) when the file ends. */
export function usageFixtures() {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await killAllBridges();
  });
  after(async () => {
    for (const c of cleanups) await c();
  });
  return async (): Promise<{ db: ScratchDb; usageTopic: string; catalogTopic: string }> => {
    const db = await scratchDatabase();
    const usageTopic = scratchTopic();
    const catalogTopic = scratchTopic();
    cleanups.push(
      () => db.drop(),
      () => deleteTopic(usageTopic),
      () => deleteTopic(catalogTopic),
    );
    return { db, usageTopic, catalogTopic };
  };
}

/** A bridge aggregating the given usage topic; resolves once its consumer runs. */
export async function startAggregatingBridge(
  fx: { db: ScratchDb; usageTopic: string; catalogTopic: string },
  extra: Record<string, string> = {},
) {
  const bridge = await startBridgeProcess({
    databaseUrl: fx.db.url,
    topic: fx.catalogTopic,
    extra: { SLUICE_USAGE_TOPIC: fx.usageTopic, ...extra },
  });
  await bridge.waitForLog(/aggregating usage records/);
  return bridge;
}

/** A counter's value in the Prometheus text (0 when absent). */
export function metricValue(text: string, series: string): number {
  const escaped = series.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const m = text.match(new RegExp(`^${escaped} ([0-9.e+-]+)$`, "m"));
  return m ? Number(m[1]) : 0;
}
