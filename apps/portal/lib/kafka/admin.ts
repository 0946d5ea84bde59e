// One lazily connected kafkajs admin client per server process, used to offer
// the real topics (with their partition counts) when an endpoint is defined and
// to refuse endpoints on topics that do not exist or that Kafka's ACLs deny the
// portal. Short timeouts: when Kafka is down the portal answers 503 within a few
// seconds instead of hanging a request.
// TLS and SASL come from the KAFKA_SECURITY_PROTOCOL, KAFKA_TLS_* and KAFKA_SASL_*
// variables (@sluice/kafka-settings), read when a client connects.
import { KafkaSettingsError, type KafkaSettings, describeKafkaError, kafkaClientConfig, loadKafkaSettings } from "@sluice/kafka-settings";
import { Kafka, logLevel, type Admin } from "kafkajs";

import { AppError } from "../errors";
import { describePrincipal } from "./principal";

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

// Per portal process, and safe per replica (docs/portal.md, "Several
// replicas"): a read-only view of Kafka's topics, at most CACHE_MS old.
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

/**
 * Runs work on the shared admin client within DEADLINE_MS. A failure drops the
 * client (the next request reconnects instead of reusing a broken one) and becomes
 * a 503 naming the setting behind it when one does, or a 500 for invalid settings.
 */
async function withAdmin<T>(brokers: string[], holder: Holder, work: (admin: Admin) => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${DEADLINE_MS / 1000} s`)), DEADLINE_MS);
  });
  try {
    const running = connectedAdmin(brokers, holder).then(work);
    running.catch(() => {}); // the deadline may win; the loser must not become an unhandled rejection
    return await Promise.race([running, deadline]);
  } catch (err) {
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

function fetchTopics(brokers: string[], holder: Holder): Promise<KafkaTopic[]> {
  return withAdmin(brokers, holder, async (admin) => {
    // An empty topic list in a metadata request means "none" in current protocol
    // versions, so name the topics explicitly.
    const names = (await admin.listTopics()).filter((name) => !name.startsWith("__"));
    if (names.length === 0) return [];
    const { topics } = await admin.fetchTopicMetadata({ topics: names });
    return topics.map((t) => ({ name: t.name, partitions: t.partitions.length })).sort((a, b) => a.name.localeCompare(b.name));
  });
}

/**
 * The Kafka protocol error type (`TOPIC_AUTHORIZATION_FAILED`, …) of a kafkajs
 * error or of one it wraps (a cause, or the first of an aggregate's errors, as
 * createTopics throws them).
 */
function protocolErrorType(err: unknown): string | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; depth++) {
    const { type, cause, errors } = e as Error & { type?: unknown; cause?: unknown; errors?: unknown };
    if (typeof type === "string") return type;
    e = cause ?? (Array.isArray(errors) ? errors[0] : undefined);
  }
  return undefined;
}

/**
 * Asks Kafka's metadata for one topic by name. The admin client never creates
 * topics (kafkajs builds it with allowAutoTopicCreation false), so a missing topic
 * is answered UNKNOWN_TOPIC_OR_PARTITION, and one the principal may not DESCRIBE
 * TOPIC_AUTHORIZATION_FAILED (whether or not it exists: Kafka does not tell).
 */
function describeTopic(name: string, brokers: string[], holder: Holder): Promise<TopicLookupResult> {
  return withAdmin(brokers, holder, async (admin): Promise<TopicLookupResult> => {
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: [name] });
      const topic = topics.find((t) => t.name === name);
      return topic ? { kind: "found", topic: { name, partitions: topic.partitions.length } } : { kind: "missing" };
    } catch (err) {
      const type = protocolErrorType(err);
      if (type === "UNKNOWN_TOPIC_OR_PARTITION") return { kind: "missing" };
      if (type === "TOPIC_AUTHORIZATION_FAILED") return { kind: "denied", principal: describePrincipal(holder.settings!) };
      throw err;
    }
  });
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

/** What Kafka says about a topic name: it has the topic, has no such topic, or its ACLs deny the portal's principal the topic. */
export type TopicLookupResult =
  | { kind: "found"; topic: KafkaTopic }
  | { kind: "missing" }
  /** principal: who Kafka denied, as the settings tell it (describePrincipal), never a secret. */
  | { kind: "denied"; principal: string };

/**
 * Looks a topic up: in the cached topic list, and when that misses it, in Kafka's
 * metadata for that one name (which also finds a topic created since the list was
 * cached, and then drops the stale list). Kafka leaves topics the principal may not DESCRIBE out of a listing
 * without a word, so a fresh listing could not tell a denied topic from a missing
 * one; the question by name can. Throws a 503 AppError when Kafka cannot be reached.
 */
export async function findKafkaTopic(name: string, options: { brokers?: string[] } = {}): Promise<TopicLookupResult> {
  const hit = (await listKafkaTopics(options)).find((t) => t.name === name);
  if (hit) return { kind: "found", topic: hit };
  const brokers = options.brokers ?? kafkaBrokers();
  const holder = holderFor(brokers);
  const result = await describeTopic(name, brokers, holder);
  // A topic created since the list was cached: the next listing must show it too.
  if (result.kind === "found") holder.cache = undefined;
  return result;
}

/** What Kafka answered a topic creation. */
export type CreateTopicResult =
  | { kind: "created" }
  | { kind: "exists" }
  /** principal: who Kafka refused (describePrincipal); acl: the permission it lacks. */
  | { kind: "denied"; principal: string; acl: string }
  /** Kafka refused the request itself (a partition count over a policy's limit, …): error is its error type. */
  | { kind: "refused"; error: string; field: "name" | "partitions" };

/**
 * Creates a topic with the portal's Kafka client, so the cluster's ACLs decide
 * (CREATE on the topic or the cluster). Replication follows the brokers'
 * default.replication.factor. Waits for the partitions' leaders, so an endpoint
 * defined and subscribed at once finds the topic serving. Throws a 503 AppError
 * when Kafka cannot be reached.
 */
export async function createKafkaTopic(topic: { name: string; partitions: number }, options: { brokers?: string[] } = {}) {
  const brokers = options.brokers ?? kafkaBrokers();
  const holder = holderFor(brokers);
  const result = await withAdmin(brokers, holder, async (admin): Promise<CreateTopicResult> => {
    try {
      const created = await admin.createTopics({
        topics: [{ topic: topic.name, numPartitions: topic.partitions }],
        waitForLeaders: true,
        timeout: 5_000,
      });
      return created ? { kind: "created" } : { kind: "exists" };
    } catch (err) {
      const type = protocolErrorType(err);
      if (type === "TOPIC_AUTHORIZATION_FAILED" || type === "CLUSTER_AUTHORIZATION_FAILED")
        return {
          kind: "denied",
          principal: describePrincipal(holder.settings!),
          // Kafka lets a principal create a topic with CREATE on the cluster or on that topic (a prefixed pattern covers many).
          acl: type === "CLUSTER_AUTHORIZATION_FAILED" ? "CREATE on the cluster" : `CREATE on the topic ${topic.name} (or on the cluster)`,
        };
      if (type === "INVALID_PARTITIONS" || type === "INVALID_REPLICATION_FACTOR" || type === "POLICY_VIOLATION")
        return { kind: "refused", error: type, field: "partitions" };
      if (type === "INVALID_TOPIC_EXCEPTION") return { kind: "refused", error: type, field: "name" };
      throw err;
    }
  });
  // The next listing must show the new topic.
  holder.cache = undefined;
  return result;
}

/** A function the endpoint domain uses to check topics; tests may pass their own. */
export type TopicLookup = (name: string) => Promise<TopicLookupResult>;
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
