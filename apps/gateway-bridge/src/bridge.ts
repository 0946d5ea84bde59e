// The bridge: health/metrics listener plus the leadership loop. One bridge at a
// time holds the publisher lock (a PostgreSQL session advisory lock) and
// publishes; others wait on the lock and take over when its session ends.
//
// How a session ends, and so how fast a standby takes over:
// - the leader crashes or is killed: the kernel closes its sockets, PostgreSQL
//   ends the session at once, the lock is free (failover in ~1-2 s);
// - the leader is frozen (SIGSTOP, VM pause) or its host vanishes: its TCP
//   connection stays open (a stopped process's kernel still ACKs keepalives,
//   so TCP keepalive and tcp_user_timeout never fire), so the lock session
//   carries idle_session_timeout = the lease: PostgreSQL itself ends a session
//   that has not run a query for that long. The leader runs one every third
//   of the lease. No pg_terminate_backend from the standby (it would need a
//   lease table and the right to signal backends), no clocks compared.
// A leader that wakes up after losing its lease is fenced in Kafka (see
// publisher.ts), so it cannot publish anything stale.
import type http from "node:http";
import type { Admin, Kafka } from "kafkajs";
import pg from "pg";
import { CATALOG_OUTBOX_CHANNEL, createDb, type Database } from "@sluice/db";
import { describeKafkaError, describeKafkaSettings } from "@sluice/kafka-settings";
import { currentState } from "./catalog-diff.ts";
import type { BridgeConfig } from "./config.ts";
import { startHttpServer } from "./health.ts";
import { catalogEndOffset, createKafka, ensureTopic, readTopic } from "./kafka.ts";
import { errorText, log } from "./log.ts";
import { BridgeMetrics } from "./metrics.ts";
import { Publisher } from "./publisher.ts";
import { Pump, backoffMs, sleep, stopwatch, whenAborted } from "./pump.ts";
import { TopicFollower } from "./topic-follower.ts";
import { startUsageAggregator } from "./usage/aggregator.ts";

/** Old published outbox rows are deleted at most this often. */
const CLEANUP_EVERY_MS = 3600_000;

/** Errors the publisher already logged, so the leadership loop does not log them twice. */
const reported = new WeakSet<object>();

export interface RunningBridge {
  /** Graceful stop: finish the in-flight batch, release the lock, disconnect. */
  stop(): Promise<void>;
  readonly server: http.Server;
}

interface Shared {
  config: BridgeConfig;
  db: Database;
  pool: pg.Pool;
  kafka: Kafka;
  metrics: BridgeMetrics;
  /** The catalog topic as it is written, for a takeover's read (topic-follower.ts). */
  follower: TopicFollower;
  setLeader(on: boolean): void;
}

/**
 * How long a takeover waits for the follower to reach the topic's end after
 * the fence (the fence's abort marker, if any, is the last thing to arrive)
 * before it also starts reading the topic back, taking whichever is first.
 */
const FOLLOWER_WAIT_MS = 300;

/**
 * Between two publisher sessions that did not get as far as publishing (the
 * database or Kafka away): 250 ms plus up to 2 s of jitter, doubling from
 * 200 ms. A session attempt is one connection and one query, cheap to repeat;
 * with the 10 s cap of the other loops, the bridges came back up to ~10 s
 * after PostgreSQL did (5.7 s in a chaos run), the catalog frozen meanwhile.
 */
const SESSION_RETRY_MIN_MS = 250;
const SESSION_RETRY_JITTER_CAP_MS = 2_000;

export async function startBridge(config: BridgeConfig): Promise<RunningBridge> {
  const db = createDb({ url: config.databaseUrl, max: 4 });
  const pool = db.$client;
  pool.on("error", (err) => log(`database connection error: ${err.message}`));
  // A connection PostgreSQL closes while checked out (between two statements
  // of a snapshot's transaction) emits "error" on the client, where the pool
  // no longer listens: without a listener that is an uncaught exception,
  // which ends the process. Its query fails on its own and is retried.
  pool.on("connect", (client) => client.on("error", (err) => log(`database connection in use failed: ${err.message}`)));
  if (config.kafka.protocol !== "PLAINTEXT") log(`kafka: ${describeKafkaSettings(config.kafka).join(" ")}`);
  const kafka = createKafka(config.kafkaBrokers, config.kafka);
  const healthAdmin = kafka.admin();
  const metrics = new BridgeMetrics(pool);
  let leader = false;
  const follower = new TopicFollower(kafka, config.catalogTopic);
  follower.start();
  const shared: Shared = {
    config,
    db,
    pool,
    kafka,
    metrics,
    follower,
    setLeader(on) {
      leader = on;
      metrics.leader.set(on ? 1 : 0);
    },
  };
  const server = await startHttpServer(config.host, config.port, { pool, admin: healthAdmin, metrics, isLeader: () => leader });
  log(`bridge listening on http://${config.host}:${config.port} (catalog topic ${config.catalogTopic}, usage topic ${config.usageTopic})`);

  // Every bridge aggregates usage, leader or not (the consumer group shares the work).
  const usage = startUsageAggregator({
    kafka,
    kafkaSettings: config.kafka,
    pool,
    metrics,
    topic: config.usageTopic,
    retentionSweepSeconds: config.usageRetentionSweepSeconds,
    killAfterCountedRecords: config.testKillAfterUsageRecords,
  });

  const stopping = new AbortController();
  const loop = (async () => {
    let attempt = 0;
    while (!stopping.signal.aborted) {
      let led = false;
      try {
        led = await leaderSession(shared, stopping.signal);
      } catch (err) {
        if (!stopping.signal.aborted && !reported.has(err as object))
          log(`publisher session ended: ${describeKafkaError(err, config.kafka)}`);
      }
      if (stopping.signal.aborted) break;
      attempt = led ? 0 : attempt + 1;
      await sleep(SESSION_RETRY_MIN_MS + backoffMs(attempt, SESSION_RETRY_JITTER_CAP_MS), stopping.signal);
    }
  })();

  return {
    server,
    async stop() {
      stopping.abort();
      await Promise.all([loop, usage.stop(), follower.stop()]);
      await follower.deleteGroup(healthAdmin);
      server.close();
      await healthAdmin.disconnect().catch(() => {});
      await pool.end().catch(() => {});
    },
  };
}

/**
 * One turn as (candidate) publisher: take the lock, LISTEN, make sure the topic
 * exists, reconcile it with the database, then drain on every notification and
 * sweep until stopped or the lock session is lost. The lock and the LISTEN
 * share one connection on purpose: if the database drops it, both the lock and
 * the notifications are gone together, and the next turn starts over with a
 * full (idempotent) reconciliation — nothing committed meanwhile is missed.
 * Returns whether it got as far as publishing.
 */
async function leaderSession(shared: Shared, stop: AbortSignal): Promise<boolean> {
  const { config } = shared;
  const session = new pg.Client({ connectionString: config.databaseUrl, keepAlive: true, application_name: "sluice-bridge" });
  const lost = new AbortController();
  const onStop = () => lost.abort();
  stop.addEventListener("abort", onStop);
  session.on("error", (err) => {
    if (!lost.signal.aborted) log(`publisher lock session lost: ${err.message}`);
    lost.abort();
  });
  session.on("end", () => {
    if (!lost.signal.aborted) log("publisher lock session ended");
    lost.abort();
  });
  const admin = shared.kafka.admin();
  const publisher = new Publisher(
    shared.kafka,
    config.catalogTopic,
    (err) => {
      // Logged even when the term is already ending: a refused (fenced) write is worth seeing.
      log(`publishing failed, ending this leadership term: ${describeKafkaError(err, config.kafka)}`);
      if (err && typeof err === "object") reported.add(err);
      lost.abort();
    },
    lost.signal,
  );
  const leaseCheckMs = (config.leaseSeconds * 1000) / 3;
  let pump: Pump | null = null;
  const timers: NodeJS.Timeout[] = [];
  let published = false;
  try {
    await session.connect();
    // The lease (see the top of this file). Waiting for the lock is not idle.
    await session.query("select set_config('idle_session_timeout', $1, false)", [`${config.leaseSeconds * 1000}`]);
    // Waiting for the lock must end when we stop: closing the connection does that.
    const cancelWait = () => void session.end().catch(() => {});
    lost.signal.addEventListener("abort", cancelWait);
    await session.query("select pg_advisory_lock(hashtext($1))", [`sluice.bridge:${config.catalogTopic}`]);
    lost.signal.removeEventListener("abort", cancelWait);
    if (lost.signal.aborted) return false;
    shared.setLeader(true);
    log(`holding the publisher lock for ${config.catalogTopic}`);
    // Where a takeover's time goes, in the "in sync" line: the catalog is frozen until then.
    const took = stopwatch();
    // Renews the lease from now on (reading the topic back may take longer than
    // the lease), and notices a half-open connection, which raises no event: a
    // query on it times out.
    timers.push(
      setInterval(() => {
        void Promise.race([
          session.query("select 1"),
          sleep(leaseCheckMs, lost.signal).then(() => Promise.reject(new Error("lease check timed out"))),
        ]).catch((err) => {
          if (!lost.signal.aborted) log(`publisher lock session check failed: ${errorText(err)}`);
          lost.abort();
        });
      }, leaseCheckMs),
    );

    // LISTEN before reading anything: a change committed after this point
    // notifies us; one committed before is in the snapshot or still pending.
    await session.query(`listen ${CATALOG_OUTBOX_CHANNEL}`);
    // The topic first: creating it publishes nothing, and on a fresh cluster the
    // fence below may wait seconds for Kafka's transaction log to exist, which
    // gateways need not wait for to find an (empty) catalog topic.
    await admin.connect();
    await ensureTopic(admin, config.catalogTopic);
    const topicMs = took();
    // Fence earlier leaders before reading anything we will publish: what they
    // committed is now on the topic for readTopic to see; nothing more of theirs
    // can be.
    await publisher.fence();
    const fenceMs = took();
    const topicState = new Map<string, string>();
    pump = new Pump(
      {
        pool: shared.pool,
        publisher,
        metrics: shared.metrics,
        topicState,
        outboxRetentionDays: config.outboxRetentionDays,
        beforeSend: stopBeforeSendHook(config.testStopBeforeSendAfterRows),
      },
      lost.signal,
    );
    const activePump = pump;
    session.on("notification", () => activePump.wake());

    const { state, readFrom } = await topicStateAfterFence(shared, admin);
    for (const [key, value] of state) topicState.set(key, value);
    const readMs = took();
    await pump.reconcile();
    const reconcileMs = took();
    if (lost.signal.aborted) return false;
    published = true;
    log(
      `catalog topic ${config.catalogTopic} is in sync (${topicState.size} keys) ${topicMs + fenceMs + readMs + reconcileMs} ms after the lock ` +
        `(topic checked ${topicMs} ms, fence ${fenceMs} ms, topic state ${readMs} ms (${readFrom}), reconciled ${reconcileMs} ms); publishing outbox changes`,
    );

    pump.start();
    timers.push(setInterval(() => activePump.wake({ reconcile: true }), config.sweepSeconds * 1000));
    timers.push(setInterval(() => activePump.wake({ cleanup: true }), CLEANUP_EVERY_MS));
    activePump.wake({ cleanup: true });
    await whenAborted(lost.signal);
    return true;
  } finally {
    for (const t of timers) clearInterval(t);
    lost.abort();
    await pump?.idle();
    shared.setLeader(false);
    stop.removeEventListener("abort", onStop);
    // Ending the session releases the advisory lock.
    await session.end().catch(() => {});
    await publisher.close();
    await admin.disconnect().catch(() => {});
    if (published || stop.aborted) log(`released the publisher lock for ${config.catalogTopic}`);
  }
}

/**
 * The catalog topic's state (last value per key) right after the fence: the
 * follower's, when it reaches the end offset listed now within
 * FOLLOWER_WAIT_MS; otherwise whichever comes first of the follower and a read
 * from the start (the follower may be rejoining after an outage, or a read
 * may wait for a new consumer group), the other one cancelled.
 */
interface TopicState {
  state: Map<string, string>;
  readFrom: "empty topic" | "followed" | "read back";
}

async function topicStateAfterFence(shared: Shared, admin: Admin): Promise<TopicState> {
  const topic = shared.config.catalogTopic;
  const end = await catalogEndOffset(admin, topic);
  if (end === 0n) return { state: new Map(), readFrom: "empty topic" };
  const quick = await shared.follower.stateAt(end, FOLLOWER_WAIT_MS);
  if (quick) return { state: quick, readFrom: "followed" };
  const cancel = new AbortController();
  const readBack: Promise<TopicState> = readTopic(shared.kafka, admin, topic, 60_000, cancel.signal).then((records) => ({
    state: currentState(records),
    readFrom: "read back",
  }));
  readBack.catch(() => {}); // its failure counts only if the follower does not answer first
  const followed: Promise<TopicState> = shared.follower
    .stateAt(end, 60_000)
    .then((state): TopicState | Promise<TopicState> => (state ? { state, readFrom: "followed" } : readBack));
  try {
    const first = await Promise.race([readBack, followed]);
    if (first.readFrom === "read back") {
      shared.follower.restart(`a takeover read the topic back: the follower was ${shared.follower.describe()}, the topic's end at ${end}`);
    }
    return first;
  } finally {
    cancel.abort();
  }
}

/** The zombie-leader test hook (config.testStopBeforeSendAfterRows); never set in production. */
function stopBeforeSendHook(afterRows: number | undefined): ((rows: readonly { id: number }[]) => void) | undefined {
  if (afterRows === undefined) return undefined;
  let read = 0;
  let done = false;
  return (rows) => {
    read += rows.length;
    if (done || read < afterRows) return;
    done = true;
    log(`test hook: stopping the bridge (SIGSTOP) with outbox rows ${rows[0]?.id}..${rows.at(-1)?.id} read and not yet sent`);
    // Synchronous: the process stops here; SIGCONT resumes it with the send.
    process.kill(process.pid, "SIGSTOP");
  };
}
