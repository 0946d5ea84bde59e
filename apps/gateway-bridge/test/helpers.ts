// Shared fixtures for the integration tests: a scratch database per test (the
// running stack's bridge drains the shared one), a scratch catalog topic, and
// the bridge as a child process, exactly as the launcher runs it.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import net from "node:net";
import { after, before } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { endpointRecord, type CatalogRecord } from "@sluice/db";
import { createScratchDatabase } from "@sluice/db/test-support/scratch";
import { loadKafkaSettings } from "@sluice/kafka-settings";
import type { TopicRecord } from "../src/catalog-diff.ts";
import { createKafka, readTopic } from "../src/kafka.ts";

export const brokers = (process.env.KAFKA_BROKERS ?? "127.0.0.1:9092").split(",");
const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) throw new Error("DATABASE_URL must point at a PostgreSQL server (the tests create scratch databases on it)");

export const kafka = createKafka(brokers, loadKafkaSettings());
const bridgeDir = fileURLToPath(new URL("..", import.meta.url));

/** Polls until check returns a value (not undefined/false); the deadline only guards against hanging. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      lastError = err;
    }
    await delay(100);
  }
  throw new Error(`timed out waiting for ${what}${lastError ? `: ${String(lastError)}` : ""}`);
}

export interface ScratchDb {
  url: string;
  pool: pg.Pool;
  drop(): Promise<void>;
}

export async function scratchDatabase(): Promise<ScratchDb> {
  const scratch = await createScratchDatabase({ serverUrl: serverUrl!, prefix: "sluice_bridge_test" });
  const pool = new pg.Pool({ connectionString: scratch.url, max: 4 });
  return {
    url: scratch.url,
    pool,
    async drop() {
      await pool.end();
      await scratch.drop();
    },
  };
}

/**
 * One scratch database and one catalog topic for a whole test file, cleaned up
 * (with every bridge the file started) when it ends.
 */
export function scratchPerFile(): { readonly db: ScratchDb; topic: string } {
  let db: ScratchDb | undefined;
  const topic = scratchTopic();
  before(async () => {
    db = await scratchDatabase();
  });
  after(async () => {
    await killAllBridges();
    await db?.drop();
    await deleteTopic(topic);
    await deleteTopic(usageTopicFor(topic));
  });
  return {
    get db() {
      if (!db) throw new Error("scratchPerFile(): the database exists once the file's before() hook has run");
      return db;
    },
    topic,
  };
}

/**
 * scratchPerTest gives each test of a file its own database and catalog topic
 * (fixture()), all removed after the file with whatever else a test hands to
 * defer() (a pool, a private server), in that order.
 */
export function scratchPerTest(): {
  fixture(): Promise<{ db: ScratchDb; topic: string }>;
  defer(...cleanups: Array<() => Promise<void>>): void;
} {
  const cleanups: Array<() => Promise<void>> = [];
  after(async () => {
    for (const c of cleanups) await c();
  });
  return {
    async fixture() {
      const db = await scratchDatabase();
      const topic = scratchTopic();
      cleanups.push(
        () => db.drop(),
        () => deleteTopic(topic),
        () => deleteTopic(usageTopicFor(topic)),
      );
      return { db, topic };
    },
    defer(...more) {
      cleanups.push(...more);
    },
  };
}

export function scratchTopic(): string {
  return `sluice-bridge-test-${randomBytes(5).toString("hex")}`;
}

/**
 * The usage topic a test bridge aggregates unless a test names one: never the
 * stack's own, whose consumer group (and records) belong to the stack's bridge.
 */
export const usageTopicFor = (catalogTopic: string) => `${catalogTopic}-usage`;

export async function deleteTopic(topic: string): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.deleteTopics({ topics: [topic] }).catch(() => {});
  } finally {
    await admin.disconnect();
  }
}

/** Every record on the topic, from the start. */
export async function topicRecords(topic: string): Promise<TopicRecord[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const topics = await admin.listTopics();
    if (!topics.includes(topic)) return [];
    return await readTopic(kafka, admin, topic);
  } finally {
    await admin.disconnect();
  }
}

/** A loopback port nothing listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

export interface BridgeProcess {
  port: number;
  child: ChildProcess;
  output(): string;
  waitForLog(pattern: RegExp): Promise<void>;
  health(): Promise<{ status: number; body: Record<string, unknown> }>;
  metrics(): Promise<string>;
  /** SIGTERM (graceful) and wait for the exit code. */
  stop(): Promise<number | null>;
  kill(): Promise<void>;
}

const running = new Set<BridgeProcess>();

export async function startBridgeProcess(env: {
  databaseUrl: string;
  topic: string;
  brokers?: string;
  sweepSeconds?: number;
  /** More environment, e.g. the Kafka security settings. */
  extra?: Record<string, string>;
}): Promise<BridgeProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: bridgeDir,
    env: {
      ...process.env,
      DATABASE_URL: env.databaseUrl,
      KAFKA_BROKERS: env.brokers ?? brokers.join(","),
      KAFKAJS_NO_PARTITIONER_WARNING: "1",
      SLUICE_CATALOG_TOPIC: env.topic,
      SLUICE_BRIDGE_ADDR: `127.0.0.1:${port}`,
      SLUICE_BRIDGE_SWEEP_SECONDS: String(env.sweepSeconds ?? 3600),
      SLUICE_USAGE_TOPIC: usageTopicFor(env.topic),
      ...env.extra,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  const proc: BridgeProcess = {
    port,
    child,
    output: () => out,
    async waitForLog(pattern) {
      await waitFor(`bridge log ${pattern}\n--- output ---\n${out}`, () => pattern.test(out));
    },
    async health() {
      const res = await fetch(`${base}/healthz`);
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    async metrics() {
      return (await fetch(`${base}/metrics`)).text();
    },
    async stop() {
      running.delete(proc);
      child.kill("SIGTERM");
      return exited;
    },
    async kill() {
      running.delete(proc);
      child.kill("SIGKILL");
      await exited;
    },
  };
  running.add(proc);
  await waitFor(`bridge on port ${port} to answer\n${out}`, async () => (await fetch(`${base}/healthz`)).status > 0);
  return proc;
}

/** Kills every bridge a test left running (call in after/afterEach). */
export async function killAllBridges(): Promise<void> {
  await Promise.all([...running].map((b) => b.kill()));
}

export async function insertOutbox(pool: pg.Pool, records: CatalogRecord[]): Promise<number[]> {
  const client = await pool.connect();
  try {
    await client.query("begin");
    const ids: number[] = [];
    for (const r of records) {
      const { rows } = await client.query<{ id: string }>(
        "insert into catalog_outbox (record_key, record_value) values ($1, $2::jsonb) returning id::text as id",
        [r.key, r.value === null ? null : JSON.stringify(r.value)],
      );
      ids.push(Number(rows[0]!.id));
    }
    await client.query("commit");
    return ids;
  } catch (err) {
    await client.query("rollback");
    throw err;
  } finally {
    client.release();
  }
}

export async function pendingCount(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ n: string }>("select count(*)::text as n from catalog_outbox where published_at is null");
  return Number(rows[0]!.n);
}

export async function createApi(pool: pg.Pool): Promise<{ id: string; name: string; version: string }> {
  const name = `api-${randomUUID().slice(0, 8)}`;
  const { rows } = await pool.query<{ id: string }>("insert into streaming_apis (name, version) values ($1, '1.0.0') returning id", [name]);
  return { id: rows[0]!.id, name, version: "1.0.0" };
}

/** Creates an endpoint and its outbox row in one transaction, as the portal does. */
export async function createEndpoint(
  pool: pg.Pool,
  api: { id: string; name: string; version: string },
  topic: string,
  key: string,
): Promise<CatalogRecord> {
  const client = await pool.connect();
  try {
    await client.query("begin");
    const { rows } = await client.query(
      `insert into endpoints (api_id, path, topic, key, operations) values ($1, $2, $3, $4, array['subscribe'])
       returning id, api_id as "apiId", path, topic, key, key_param as "keyParam", operations, payload_format as "payloadFormat",
                 json_schema as "jsonSchema", description, examples, created_at as "createdAt", updated_at as "updatedAt"`,
      [api.id, `/${topic}/${key}`, topic, key],
    );
    const record = endpointRecord(rows[0], api);
    await client.query("insert into catalog_outbox (record_key, record_value) values ($1, $2::jsonb)", [
      record.key,
      JSON.stringify(record.value),
    ]);
    await client.query("commit");
    return record;
  } catch (err) {
    await client.query("rollback");
    throw err;
  } finally {
    client.release();
  }
}

/** The last value per key on the topic, parsed; tombstoned keys absent. */
export async function topicState(topic: string): Promise<Map<string, unknown>> {
  const state = new Map<string, unknown>();
  for (const r of await topicRecords(topic)) {
    if (r.value === null) state.delete(r.key);
    else state.set(r.key, JSON.parse(r.value));
  }
  return state;
}
