// Measures how long a portal change takes to become active on a gateway: from
// the COMMIT of an endpoint + its outbox row (written exactly as the portal
// writes them) until a WebSocket client's `subscribe` to it stops failing with
// 4004 "no such endpoint". Not a test: results go to docs/benchmarks.md.
//
// It creates its own scratch database and runs this worktree's bridge on it as
// a child process, publishing to SLUICE_CATALOG_TOPIC; a gateway reading that
// same topic must be listening at BENCH_GATEWAY_WS. See docs/benchmarks.md for
// the exact commands.
import { spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { Kafka, logLevel } from "kafkajs";
import { SignJWT, exportJWK, generateKeyPair } from "jose";
import pg from "pg";
import WebSocket from "ws";
import { appRecord, endpointRecord, signingKeyRecord, type CatalogRecord } from "@sluice/db";
import { migrateDatabase } from "@sluice/db/migrate";
import { kafkaClientConfigFromEnv } from "@sluice/kafka-settings";

const serverUrl = process.env.DATABASE_URL ?? fail("DATABASE_URL (a PostgreSQL server to create a scratch database on) is required");
const brokers = (process.env.KAFKA_BROKERS ?? "127.0.0.1:9092").split(",");
const catalogTopic = process.env.SLUICE_CATALOG_TOPIC ?? fail("SLUICE_CATALOG_TOPIC (the topic the bench gateway reads) is required");
const gatewayWs = process.env.BENCH_GATEWAY_WS ?? "ws://127.0.0.1:18480/ws";
const bridgeAddr = process.env.BENCH_BRIDGE_ADDR ?? "127.0.0.1:18490";
const changes = Number(process.env.BENCH_CHANGES ?? 100);
const dataTopic = "bench-catalog-latency";

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

async function inTransaction(pool: pg.Pool, work: (c: pg.PoolClient) => Promise<void>): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("begin");
    await work(client);
    await client.query("commit");
  } catch (err) {
    await client.query("rollback").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

const outbox = (c: pg.PoolClient, r: CatalogRecord) =>
  c.query("insert into catalog_outbox (record_key, record_value) values ($1, $2::jsonb)", [
    r.key,
    r.value === null ? null : JSON.stringify(r.value),
  ]);

/** A WebSocket that answers frames by id. */
class Client {
  private waiters = new Map<string, (frame: Record<string, unknown>) => void>();
  private constructor(private readonly ws: WebSocket) {
    ws.on("message", (data) => {
      const frame = JSON.parse(String(data)) as Record<string, unknown>;
      const id = frame.id as string | undefined;
      if (id && this.waiters.has(id)) {
        const w = this.waiters.get(id)!;
        this.waiters.delete(id);
        w(frame);
      }
    });
  }
  static async open(url: string, token: string): Promise<Client> {
    const ws = new WebSocket(url, "sluice.v1", { headers: { authorization: `Bearer ${token}` } });
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    return new Client(ws);
  }
  request(frame: Record<string, unknown>): Promise<Record<string, unknown>> {
    return new Promise((resolve) => {
      this.waiters.set(frame.id as string, resolve);
      this.ws.send(JSON.stringify(frame));
    });
  }
  close() {
    this.ws.close();
  }
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function main() {
  // 1. Scratch database, so no other bridge drains our outbox.
  const dbName = `sluice_bench_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  const url = new URL(serverUrl);
  url.pathname = `/${dbName}`;
  await migrateDatabase({ url: url.toString() });
  const pool = new pg.Pool({ connectionString: url.toString(), max: 2 });

  // 2. The data topic the endpoints point at.
  const kafka = new Kafka({ clientId: "bench", brokers, logLevel: logLevel.NOTHING, ...kafkaClientConfigFromEnv() });
  const kadmin = kafka.admin();
  await kadmin.connect();
  await kadmin.createTopics({ topics: [{ topic: dataTopic, numPartitions: 1 }], waitForLeaders: true });

  // 3. A signing key and an app, through the outbox like the portal.
  const { publicKey, privateKey } = await generateKeyPair("ES256");
  const kid = `bench-${randomBytes(4).toString("hex")}`;
  const apiName = `bench-${randomBytes(4).toString("hex")}`;
  let appId = "";
  const api = { id: "", name: apiName, version: "1.0.0" };
  await inTransaction(pool, async (c) => {
    const jwk = await exportJWK(publicKey);
    await c.query(
      "insert into signing_keys (kid, algorithm, public_jwk, private_key_ciphertext) values ($1, 'ES256', $2, 'bench: not stored')",
      [kid, jwk],
    );
    const app = (
      await c.query(`insert into apps (name) values ('latency bench') returning id, name, tokens_not_before as "tokensNotBefore"`)
    ).rows[0];
    appId = app.id;
    api.id = (await c.query("insert into streaming_apis (name, version) values ($1, '1.0.0') returning id", [apiName])).rows[0].id;
    await outbox(c, signingKeyRecord({ kid, algorithm: "ES256", publicJwk: jwk, status: "active" }));
    await outbox(c, appRecord(app));
  });

  // 4. This worktree's bridge on the scratch database.
  const bridge = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    env: {
      ...process.env,
      DATABASE_URL: url.toString(),
      SLUICE_CATALOG_TOPIC: catalogTopic,
      SLUICE_BRIDGE_ADDR: bridgeAddr,
      KAFKAJS_NO_PARTITIONER_WARNING: "1",
    },
    stdio: ["ignore", "inherit", "inherit"],
  });

  const now = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({ permissions: { sub: ["/*"], pub: [], all: [] } })
    .setProtectedHeader({ alg: "ES256", kid })
    .setIssuer("sluice")
    .setAudience("sluice-gateway")
    .setSubject(appId)
    .setJti(randomUUID())
    .setIssuedAt(now - 5)
    .setExpirationTime(now + 3600)
    .sign(privateKey);

  // 5. Connect once the gateway knows the key and the app.
  let client: Client | null = null;
  for (let attempt = 0; !client; attempt++) {
    try {
      const c = await Client.open(gatewayWs, token);
      const pong = await Promise.race([c.request({ type: "ping", id: "p" }), delay(2000).then(() => null)]);
      if (pong?.type === "pong") client = c;
      else c.close();
    } catch {
      // 401 until the catalog has the key and the app.
    }
    if (!client) {
      if (attempt > 300) fail(`the gateway never accepted the token: is it running with SLUICE_CATALOG_TOPIC=${catalogTopic}?`);
      await delay(100);
    }
  }

  // 6. The measured changes, one at a time.
  const latencies: number[] = [];
  const run = randomBytes(3).toString("hex");
  for (let i = 0; i < changes; i++) {
    const key = `k${i}-${run}`;
    // The clock starts when COMMIT is sent (not when its answer arrives): the
    // change may become visible to the bridge before our client hears back.
    const c = await pool.connect();
    let committedAt: number;
    try {
      await c.query("begin");
      const { rows } = await c.query(
        `insert into endpoints (api_id, path, topic, key, operations) values ($1, $2, $3, $4, array['subscribe'])
         returning id, api_id as "apiId", path, topic, key, key_param as "keyParam", operations, payload_format as "payloadFormat",
                   json_schema as "jsonSchema", description, examples, created_at as "createdAt", updated_at as "updatedAt"`,
        [api.id, `/${dataTopic}/${key}`, dataTopic, key],
      );
      await outbox(c, endpointRecord(rows[0], api));
      committedAt = performance.now();
      await c.query("commit");
    } finally {
      c.release();
    }
    for (let n = 0; ; n++) {
      const answer = await client.request({ type: "subscribe", id: `s${i}-${n}`, endpoint: `/${dataTopic}/${key}` });
      if (answer.type === "subscribed") break;
      if (answer.code !== 4004) fail(`unexpected answer: ${JSON.stringify(answer)}`);
    }
    latencies.push(performance.now() - committedAt);
    await client.request({ type: "unsubscribe", id: `u${i}`, endpoint: `/${dataTopic}/${key}` });
    await delay(20);
  }

  const sorted = [...latencies].sort((a, b) => a - b);
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  console.log(
    `catalog latency over ${sorted.length} changes (commit → gateway serves the endpoint): ` +
      `p50 ${ms(pct(sorted, 50))}, p95 ${ms(pct(sorted, 95))}, p99 ${ms(pct(sorted, 99))}, max ${ms(sorted.at(-1)!)}, min ${ms(sorted[0]!)}`,
  );

  client.close();
  bridge.kill("SIGTERM");
  await new Promise((r) => bridge.once("exit", r));
  await pool.end();
  await kadmin.deleteTopics({ topics: [dataTopic] }).catch(() => {});
  await kadmin.disconnect();
  await delay(500);
  await admin.query(`drop database if exists ${dbName}`).catch((e) => console.error(`could not drop ${dbName}: ${e.message}`));
  await admin.end();
  if (pct(sorted, 99) > 1000) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
