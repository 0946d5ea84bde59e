// The usage aggregator: a consumer group on the usage topic that folds every
// record into PostgreSQL (count-record.ts). It runs in every bridge beside the
// catalog publisher, not only in the leader: the group spreads the partitions
// over the bridges, and the idempotency row makes any overlap harmless.
//
// At-least-once: a record's offset is committed to Kafka only after its
// transaction committed in PostgreSQL. A crash between the two redelivers the
// record, and its idempotency row makes the second delivery a no-op.
import type { Admin, Consumer, Kafka, KafkaMessage } from "kafkajs";
import type pg from "pg";
import { describeKafkaError, type KafkaSettings } from "@sluice/kafka-settings";
import { errorText, log } from "../log.ts";
import type { BridgeMetrics } from "../metrics.ts";
import { backoffMs, sleep, whenAborted, withTimeout } from "../pump.ts";
import { type Progress, watchForStalls } from "../stall-watchdog.ts";
import { countRecord, deleteExpiredUsage } from "./count-record.ts";
import { ensureUsageTopic } from "./usage-topic.ts";
import { parseUsageRecord } from "./usage-record.ts";

export interface UsageAggregatorOptions {
  kafka: Kafka;
  kafkaSettings: KafkaSettings;
  pool: pg.Pool;
  metrics: BridgeMetrics;
  topic: string;
  /** How often expired buckets are deleted. */
  retentionSweepSeconds: number;
  /**
   * Test hook: after this many records were committed to PostgreSQL the process
   * kills itself (SIGKILL) before committing their offsets, the window a crash
   * can fall into. Never set in production.
   */
  killAfterCountedRecords?: number;
  /** How often the stall watchdog looks (WATCHDOG_MS; tests shorten it). */
  watchdogMs?: number;
}

export interface UsageAggregator {
  stop(): Promise<void>;
}

const DISCONNECT_TIMEOUT_MS = 5000;

/** How often the stall watchdog compares the group's committed offsets with the topic's end. */
const WATCHDOG_MS = 10_000;

/** The consumer group: one per topic, shared by every bridge. */
export const usageGroupId = (topic: string) => `sluice-bridge-usage.${topic}`;

/** PostgreSQL error classes that mean "this record cannot be stored", not "try again": 22 data exception, 23 integrity. */
const isDataError = (err: unknown) => /^2[23]/.test((err as { code?: string }).code ?? "");

export function startUsageAggregator(options: UsageAggregatorOptions): UsageAggregator {
  const stopping = new AbortController();
  const { metrics } = options;
  let counted = 0;

  /** Counts one record, retrying database outages until it is stored or we stop. */
  async function handle(message: KafkaMessage, partition: number, shouldGoOn: () => boolean): Promise<boolean> {
    const where = `partition ${partition} offset ${message.offset} key ${message.key?.toString("utf8").slice(0, 200) ?? "(none)"}`;
    const parsed = parseUsageRecord(message.value);
    if (!parsed.ok) {
      metrics.usageRecords.inc({ result: "invalid" });
      log(`usage record skipped (${where}): ${parsed.reason}`);
      return true;
    }
    if (parsed.skippedApps.length > 0) {
      metrics.usageAppsSkipped.inc(parsed.skippedApps.length);
      const total = parsed.record.apps.length + parsed.skippedApps.length;
      log(
        `usage record (${where}) counted without ${parsed.skippedApps.length} of ${total} apps: ${parsed.skippedApps.slice(0, 3).join("; ")}`,
      );
    }
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await countRecord(options.pool, parsed.record);
        metrics.usageRecords.inc({ result });
        if (result === "counted") {
          metrics.usageLastInterval.set(parsed.record.interval_end / 1000);
          counted += 1;
          if (options.killAfterCountedRecords !== undefined && counted >= options.killAfterCountedRecords) {
            log(`test hook: killing the bridge after ${counted} counted usage records, before committing their offsets`);
            process.kill(process.pid, "SIGKILL");
          }
        }
        return true;
      } catch (err) {
        if (isDataError(err)) {
          metrics.usageRecords.inc({ result: "invalid" });
          // The code and constraint only: the message may quote a value of the record.
          const { code, constraint } = err as { code?: string; constraint?: string };
          log(
            `usage record skipped (${where}): the database refused it (SQLSTATE ${code}${constraint ? `, constraint ${constraint}` : ""})`,
          );
          return true;
        }
        metrics.usageErrors.inc();
        if (attempt === 0 || attempt % 10 === 0) log(`counting a usage record failed (${where}), retrying: ${errorText(err)}`);
        await sleep(500 + backoffMs(attempt), stopping.signal);
        if (stopping.signal.aborted || !shouldGoOn()) return false;
      }
    }
  }

  /**
   * How far the group committed on `partitions` (this member's) against the
   * topic's end: committing follows counting, so offsets that stay put while
   * records wait and no batch runs are a consumer kafkajs left stuck.
   */
  async function groupProgress(admin: Admin, partitions: number[]): Promise<Progress> {
    const [ends, committed] = await Promise.all([
      admin.fetchTopicOffsets(options.topic),
      admin.fetchOffsets({ groupId: usageGroupId(options.topic), topics: [options.topic] }),
    ]);
    const committedAt = new Map(committed[0]?.partitions.map((p) => [p.partition, BigInt(p.offset)]));
    const lagging: string[] = [];
    const positions: string[] = [];
    for (const partition of [...partitions].sort((a, b) => a - b)) {
      const end = ends.find((e) => e.partition === partition);
      if (!end) continue;
      // -1: nothing committed yet, the member reads from the start.
      const at = committedAt.get(partition) ?? -1n;
      const position = at < 0n ? BigInt(end.low) : at;
      positions.push(`${partition}:${position}`);
      if (position < BigInt(end.high)) lagging.push(`partition ${partition} offset ${position} of ${end.high}`);
    }
    return { behind: lagging.length > 0, position: positions.join(","), detail: lagging.join(", ") };
  }

  async function session(): Promise<void> {
    const admin = options.kafka.admin();
    let consumer: Consumer | undefined;
    const sessionEnded = new AbortController();
    let watching: Promise<void> | undefined;
    try {
      await admin.connect();
      await ensureUsageTopic(admin, options.topic);
      await admin.disconnect();
      consumer = options.kafka.consumer({
        groupId: usageGroupId(options.topic),
        allowAutoTopicCreation: false,
        maxWaitTimeInMs: 500,
        // A crashed bridge's partitions move to the others after 10 s rather than kafkajs' 30.
        sessionTimeout: 10_000,
        heartbeatInterval: 2000,
      });
      const active = consumer;
      // This member's partitions, for the stall watchdog; and whether it is
      // in a batch (a database outage holds a batch on purpose, not kafkajs).
      let assigned: number[] = [];
      let inBatch = 0;
      active.on(active.events.GROUP_JOIN, (e) => (assigned = e.payload.memberAssignment[options.topic] ?? []));
      const crashed = new Promise<void>((resolve) => {
        active.on(active.events.CRASH, (e) => {
          // kafkajs restarts itself after a retriable crash; otherwise start over.
          if (!e.payload.restart) {
            log(`usage consumer stopped: ${describeKafkaError(e.payload.error, options.kafkaSettings)}`);
            resolve();
          }
        });
      });
      await consumer.connect();
      // A new group starts at the beginning: nothing the topic still holds is missed.
      await consumer.subscribe({ topic: options.topic, fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
          inBatch++;
          try {
            let last: string | undefined;
            for (const message of batch.messages) {
              if (!isRunning() || isStale() || stopping.signal.aborted) break;
              if (!(await handle(message, batch.partition, () => isRunning() && !isStale()))) break;
              resolveOffset(message.offset);
              last = message.offset;
              await heartbeat();
            }
            // Only now, with every record above committed in PostgreSQL.
            if (last !== undefined) {
              await active.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: (BigInt(last) + 1n).toString() }]);
            }
          } finally {
            inBatch--;
          }
        },
      });
      log(`aggregating usage records from ${options.topic} (group ${usageGroupId(options.topic)})`);
      const stalled = new Promise<void>((resolve) => {
        watching = watchForStalls({
          kafka: options.kafka,
          everyMs: options.watchdogMs ?? WATCHDOG_MS,
          signal: sessionEnded.signal,
          look: async (admin) => (inBatch > 0 || assigned.length === 0 ? undefined : groupProgress(admin, assigned)),
          stalled: (detail) => {
            log(`usage consumer starting again: it stayed at ${detail}`);
            resolve();
          },
        });
      });
      // stop() may have come while run() was still joining the group: then the signal is already aborted.
      await Promise.race([crashed, stalled, whenAborted(stopping.signal)]);
    } finally {
      sessionEnded.abort();
      await watching;
      // kafkajs' disconnect can wait on a rebalance in progress (e.g. for a crashed
      // member's session to time out); a bounded wait keeps shutdown prompt, and
      // the group forgets this member after its session timeout anyway.
      if (consumer) await withTimeout(consumer.disconnect(), DISCONNECT_TIMEOUT_MS).catch(() => {});
      await admin.disconnect().catch(() => {});
    }
  }

  const loop = (async () => {
    for (let attempt = 0; !stopping.signal.aborted; attempt++) {
      try {
        await session();
        attempt = 0;
      } catch (err) {
        if (!stopping.signal.aborted) log(`usage aggregator: ${describeKafkaError(err, options.kafkaSettings)}`);
      }
      await sleep(500 + backoffMs(attempt), stopping.signal);
    }
  })();

  const sweep = async () => {
    try {
      const deleted = await deleteExpiredUsage(options.pool);
      metrics.usageRetentionDeleted.inc(deleted);
      if (deleted > 0) log(`usage retention: deleted ${deleted} expired rows`);
    } catch (err) {
      log(`usage retention failed (retried at the next sweep): ${errorText(err)}`);
    }
  };
  void sweep();
  const sweeper = setInterval(() => void sweep(), options.retentionSweepSeconds * 1000);

  return {
    async stop() {
      clearInterval(sweeper);
      stopping.abort();
      await loop;
    },
  };
}
