// One lazily connected kafkajs admin client per server process, used to offer
// the real topics (with their partition counts) when an endpoint is defined and
// to refuse endpoints on topics that do not exist. Short timeouts: when Kafka is
// down the portal answers 503 within a few seconds instead of hanging a request.
// TLS and SASL come from the KAFKA_SECURITY_PROTOCOL, KAFKA_TLS_* and KAFKA_SASL_*
// variables (@sluice/kafka-settings), read when a client connects.
import { KafkaSettingsError, type KafkaSettings, describeKafkaError, kafkaClientConfig, loadKafkaSettings } from "@sluice/kafka-settings";
import { Kafka, logLevel, type Admin } from "kafkajs";

import { AppError } from "../errors";

export interface KafkaTopic {
  name: string;
  partitions: number;
}

/** How long a topic list is reused. Short: a topic created a moment ago should appear soon. */
const CACHE_MS = 5_000;
/** The longest a caller waits for Kafka, connection included. */
const DEADLINE_MS = 6_000;

interface Holder {
  admin?: Admin;
  /** The security settings the last client was built with, to name the setting behind a failure. */
  settings?: KafkaSettings;
  connecting?: Promise<Admin>;
  cache?: { at: number; topics: KafkaTopic[] };
  inflight?: Promise<KafkaTopic[]>;
}

const holders = new Map<string, Holder>();

export function kafkaBrokers(env: Record<string, string | undefined> = process.env): string[] {
  return (env.KAFKA_BROKERS || "127.0.0.1:9092")
    .split(",")
    .map((b) => b.trim())
    .filter(Boolean);
}

export const kafkaUnavailable = (detail: string) =>
  new AppError(
    "unavailable",
    503,
    `Kafka is not reachable (${detail}), so its topics cannot be listed or checked. Try again when Kafka is back.`,
  );

/** A bad KAFKA_* security setting: the message names the variable (never a secret) for the operator to fix. */
export const kafkaMisconfigured = (err: KafkaSettingsError) =>
  new AppError(
    "misconfigured",
    500,
    `The portal's Kafka client settings are invalid (${err.message}), so topics cannot be listed or checked.`,
  );

function holderFor(brokers: string[]): Holder {
  // Next.js may bundle this module more than once; keep the clients on globalThis.
  const g = globalThis as typeof globalThis & { __sluiceKafkaAdmins?: Map<string, Holder> };
  g.__sluiceKafkaAdmins ??= holders;
  const id = brokers.join(",");
  let holder = g.__sluiceKafkaAdmins.get(id);
  if (!holder) {
    holder = {};
    g.__sluiceKafkaAdmins.set(id, holder);
  }
  return holder;
}

async function connectedAdmin(brokers: string[], holder: Holder): Promise<Admin> {
  if (holder.admin) return holder.admin;
  holder.connecting ??= (async () => {
    process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= "1";
    const settings = loadKafkaSettings(process.env);
    holder.settings = settings;
    const kafka = new Kafka({
      clientId: "sluice-portal",
      brokers,
      ...kafkaClientConfig(settings, { warn: (message) => console.error(`portal: ${message}`) }),
      connectionTimeout: 2_000,
      requestTimeout: 4_000,
      retry: { retries: 1, initialRetryTime: 200, maxRetryTime: 1_000 },
      logLevel: logLevel.NOTHING,
    });
    const admin = kafka.admin();
    try {
      await admin.connect();
    } catch (err) {
      await admin.disconnect().catch(() => {});
      throw err;
    }
    holder.admin = admin;
    return admin;
  })().finally(() => {
    holder.connecting = undefined;
  });
  return holder.connecting;
}

async function fetchTopics(brokers: string[], holder: Holder): Promise<KafkaTopic[]> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${DEADLINE_MS / 1000} s`)), DEADLINE_MS);
  });
  try {
    const work = (async () => {
      const admin = await connectedAdmin(brokers, holder);
      // An empty topic list in a metadata request means "none" in current protocol
      // versions, so name the topics explicitly.
      const names = (await admin.listTopics()).filter((name) => !name.startsWith("__"));
      if (names.length === 0) return [];
      const { topics } = await admin.fetchTopicMetadata({ topics: names });
      return topics.map((t) => ({ name: t.name, partitions: t.partitions.length })).sort((a, b) => a.name.localeCompare(b.name));
    })();
    work.catch(() => {}); // the deadline may win; the loser must not become an unhandled rejection
    return await Promise.race([work, deadline]);
  } catch (err) {
    // Drop the client: the next request reconnects instead of reusing a broken one.
    const admin = holder.admin;
    holder.admin = undefined;
    admin?.disconnect().catch(() => {});
    if (err instanceof KafkaSettingsError) throw kafkaMisconfigured(err);
    const detail = holder.settings ? describeKafkaError(err, holder.settings) : (err as Error).message;
    throw kafkaUnavailable(`${brokers.join(",")}: ${detail}`);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The cluster's topics (internal `__` topics left out) with their partition
 * counts, sorted by name. Throws a 503 AppError when Kafka cannot be reached.
 */
export async function listKafkaTopics(options: { fresh?: boolean; brokers?: string[] } = {}): Promise<KafkaTopic[]> {
  const brokers = options.brokers ?? kafkaBrokers();
  const holder = holderFor(brokers);
  if (!options.fresh && holder.cache && Date.now() - holder.cache.at < CACHE_MS) return holder.cache.topics;
  // Concurrent requests share one metadata call.
  holder.inflight ??= fetchTopics(brokers, holder)
    .then((topics) => {
      holder.cache = { at: Date.now(), topics };
      return topics;
    })
    .finally(() => {
      holder.inflight = undefined;
    });
  return holder.inflight;
}

/** One topic, or undefined when Kafka does not have it. A miss in the cache is checked against Kafka once more. */
export async function findKafkaTopic(name: string, options: { brokers?: string[] } = {}): Promise<KafkaTopic | undefined> {
  const cached = await listKafkaTopics(options);
  const hit = cached.find((t) => t.name === name);
  if (hit) return hit;
  return (await listKafkaTopics({ ...options, fresh: true })).find((t) => t.name === name);
}

/** A function the endpoint domain uses to check topics; tests may pass their own. */
export type TopicLookup = (name: string) => Promise<KafkaTopic | undefined>;
export const kafkaTopicLookup: TopicLookup = (name) => findKafkaTopic(name);

/** Disconnects the shared admin clients, so a one-shot script or a test process can exit. */
export async function closeKafkaAdmins(): Promise<void> {
  const g = globalThis as typeof globalThis & { __sluiceKafkaAdmins?: Map<string, Holder> };
  const all = [...(g.__sluiceKafkaAdmins ?? holders).values()];
  await Promise.all(
    all.map(async (holder) => {
      const admin = holder.admin ?? (await holder.connecting?.catch(() => undefined));
      holder.admin = undefined;
      holder.cache = undefined;
      await admin?.disconnect().catch(() => {});
    }),
  );
}
