// Kafka for the bridge: the client, creating/checking the catalog topic, and
// reading the topic back to learn its current state.
import { randomUUID } from "node:crypto";
import { kafkaClientConfig, type KafkaSettings } from "@sluice/kafka-settings";
import kafkajs, { Kafka, logLevel, type Admin, type ITopicConfig } from "kafkajs";
import SnappyCodec from "kafkajs-snappy";
import type { TopicRecord } from "./catalog-diff.ts";
import { log } from "./log.ts";
// Keeps the transaction coordinator between requests (see the module).
import "./transaction-coordinator.ts";

// Gateway nodes write their usage records with franz-go, whose producers
// compress batches with snappy by default; kafkajs reads only gzip by itself
// ("Snappy compression not implemented") and would stall on the first batch.
// kafkajs-snappy is the codec kafkajs' author keeps for this (pure JS). The
// registry is only on kafkajs' CommonJS export object (no named ESM export).
kafkajs.CompressionCodecs[kafkajs.CompressionTypes.Snappy] = SnappyCodec;

/** createKafka builds the bridge's client; settings add TLS and SASL (none: plaintext, as before). */
export function createKafka(brokers: string[], settings: KafkaSettings): Kafka {
  return new Kafka({
    clientId: "sluice-bridge",
    brokers,
    ...kafkaClientConfig(settings, { warn: log }),
    connectionTimeout: 3000,
    requestTimeout: 10_000,
    // Our own loops retry with backoff; kafkajs' inner retries stay short so an
    // outage surfaces as an error (and a metric) instead of a silent stall.
    retry: { retries: 3, initialRetryTime: 200, maxRetryTime: 2000 },
    logLevel: logLevel.NOTHING,
  });
}

/**
 * Creates the catalog topic when missing: 1 partition (one total order of
 * catalog changes), compacted (the log keeps the last record per key), as
 * replicated as the cluster allows (up to 3; with 3 replicas a write needs 2
 * in sync, min.insync.replicas=2, so an acknowledged catalog change survives
 * the loss of a broker). A topic that exists with another
 * shape is used as it is, with a loud warning: the bridge writes only to
 * partition 0, so order still holds, but an operator should fix it.
 */
export async function ensureTopic(admin: Admin, topic: string): Promise<"created" | "exists"> {
  const existing = await admin.listTopics();
  if (!existing.includes(topic)) {
    const { brokers } = await admin.describeCluster();
    const replicationFactor = Math.min(3, Math.max(1, brokers.length));
    const spec: ITopicConfig = {
      topic,
      numPartitions: 1,
      replicationFactor,
      configEntries: [
        { name: "cleanup.policy", value: "compact" },
        ...(replicationFactor >= 3 ? [{ name: "min.insync.replicas", value: "2" }] : []),
      ],
    };
    // false when another creator won the race: fine, it exists now.
    await admin.createTopics({ topics: [spec], waitForLeaders: true });
    log(
      `created catalog topic ${topic} (1 partition, cleanup.policy=compact, replication ${replicationFactor}${replicationFactor >= 3 ? ", min.insync.replicas=2" : ""})`,
    );
    return "created";
  }
  const meta = await admin.fetchTopicMetadata({ topics: [topic] });
  const partitions = meta.topics[0]?.partitions.length ?? 0;
  const configs = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: 2 /* TOPIC */, name: topic, configNames: ["cleanup.policy"] }],
  });
  const policy = configs.resources[0]?.configEntries.find((e) => e.configName === "cleanup.policy")?.configValue ?? "?";
  if (partitions !== 1) {
    log(
      `WARNING: catalog topic ${topic} has ${partitions} partitions, expected 1; the bridge writes only to partition 0. Recreate it with 1 partition.`,
    );
  }
  if (!policy.split(",").includes("compact")) {
    log(
      `WARNING: catalog topic ${topic} has cleanup.policy=${policy}, expected compact: old catalog records may be deleted. Set cleanup.policy=compact.`,
    );
  }
  return "exists";
}

/**
 * The end offset of the catalog topic's partition 0 as kafkajs lists it
 * (read_committed: the last stable offset), 0n when it has none.
 */
export async function catalogEndOffset(admin: Admin, topic: string): Promise<bigint> {
  return BigInt((await admin.fetchTopicOffsets(topic)).find((o) => o.partition === 0)?.high ?? "0");
}

/**
 * Reads partition 0 of the topic from its start up to the end offset listed
 * when the read began, read_committed. kafkajs has no manual assignment, so a
 * throwaway consumer group is used and deleted afterwards; no offsets are
 * committed. Progress is tracked from kafkajs' batch events rather than from
 * the records seen, because compaction and transaction markers leave gaps: the
 * record at end-1 need not exist.
 */
export async function readTopic(
  kafka: Kafka,
  admin: Admin,
  topic: string,
  timeoutMs = 60_000,
  signal?: AbortSignal,
): Promise<TopicRecord[]> {
  const offsets = await admin.fetchTopicOffsets(topic);
  const p0 = offsets.find((o) => o.partition === 0);
  if (!p0 || BigInt(p0.high) <= BigInt(p0.low)) return [];
  const last = BigInt(p0.high) - 1n;
  const groupId = `sluice-bridge-read-${randomUUID()}`;
  const consumer = kafka.consumer({ groupId, allowAutoTopicCreation: false, maxWaitTimeInMs: 200 });
  const records: TopicRecord[] = [];
  try {
    if (signal?.aborted) throw new Error(`reading ${topic} back was cancelled`);
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`reading ${topic} did not reach offset ${last} within ${timeoutMs} ms`)), timeoutMs);
      const check = (offset: string) => {
        if (BigInt(offset) >= last) {
          clearTimeout(timer);
          resolve();
        }
      };
      consumer.on(consumer.events.END_BATCH_PROCESS, (e) => {
        if (e.payload.partition === 0 && e.payload.lastOffset != null) check(e.payload.lastOffset);
      });
      consumer.on(consumer.events.CRASH, (e) => {
        clearTimeout(timer);
        reject(e.payload.error);
      });
      // The caller got the state elsewhere (the follower): stop reading,
      // also when that happened while this consumer was connecting.
      const cancelled = () => {
        clearTimeout(timer);
        reject(new Error(`reading ${topic} back was cancelled`));
      };
      if (signal?.aborted) cancelled();
      signal?.addEventListener("abort", cancelled, { once: true });
      consumer
        .run({
          autoCommit: false,
          eachMessage: async ({ partition, message }) => {
            if (partition !== 0 || BigInt(message.offset) > last || message.key === null) return;
            records.push({ key: message.key.toString("utf8"), value: message.value === null ? null : message.value.toString("utf8") });
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect().catch(() => {});
    await admin.deleteGroups([groupId]).catch(() => {});
  }
  return records;
}
