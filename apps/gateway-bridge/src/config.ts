// The bridge's configuration, from the environment, validated at start. A bad
// value stops the bridge with a message naming the variable.
import { databaseUrlFromEnv } from "@sluice/db";
import { KafkaSettingsError, loadKafkaSettings, type KafkaSettings } from "@sluice/kafka-settings";

export interface BridgeConfig {
  /** host:port of the health/metrics listener. Env SLUICE_BRIDGE_ADDR, default 127.0.0.1:8090. */
  host: string;
  port: number;
  databaseUrl: string;
  /** Env KAFKA_BROKERS (comma-separated), default 127.0.0.1:9092. */
  kafkaBrokers: string[];
  /** How to connect to them: KAFKA_SECURITY_PROTOCOL, KAFKA_TLS_*, KAFKA_SASL_* (see @sluice/kafka-settings). */
  kafka: KafkaSettings;
  /** The compacted catalog topic. Env SLUICE_CATALOG_TOPIC (the gateway's name too), default __sluice_catalog. */
  catalogTopic: string;
  /**
   * How often a safety sweep drains the outbox even without a notification
   * (covers a lost NOTIFY, e.g. rows written while nobody listened). Env
   * SLUICE_BRIDGE_SWEEP_SECONDS, default 30.
   */
  sweepSeconds: number;
  /**
   * The publisher's lease: the lock session's idle_session_timeout, so
   * PostgreSQL itself ends the session (and frees the lock) of a leader that has
   * not shown life for this long (stopped, frozen or cut off), and the standby
   * takes over. The leader checks in every third of it. Env
   * SLUICE_BRIDGE_LEASE_SECONDS, default 15, at least 3.
   */
  leaseSeconds: number;
  /** Published outbox rows older than this are deleted. Env SLUICE_BRIDGE_OUTBOX_RETENTION_DAYS, default 7. */
  outboxRetentionDays: number;
  /** The usage topic gateways report to (docs/usage.md). Env SLUICE_USAGE_TOPIC (the gateway's name too), default __sluice_usage. */
  usageTopic: string;
  /** How often expired usage buckets are deleted. Env SLUICE_USAGE_RETENTION_SWEEP_SECONDS, default 3600. */
  usageRetentionSweepSeconds: number;
  /**
   * Test hook (integration tests only): kill the process after this many usage
   * records were committed to PostgreSQL, before their offsets are committed.
   * Env SLUICE_BRIDGE_TEST_KILL_AFTER_USAGE_RECORDS.
   */
  testKillAfterUsageRecords?: number;
  /**
   * Test hook (integration tests only): once the drain has read this many
   * outbox rows, the process SIGSTOPs itself with the batch in hand, before
   * sending it: a zombie leader for the fencing test. Env
   * SLUICE_BRIDGE_TEST_STOP_BEFORE_SEND_AFTER_ROWS.
   */
  testStopBeforeSendAfterRows?: number;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

export const DEFAULT_CATALOG_TOPIC = "__sluice_catalog";
export const DEFAULT_USAGE_TOPIC = "__sluice_usage";

// Kafka's own rule for topic names (the same check the gateway applies).
const TOPIC_NAME = /^[A-Za-z0-9._-]{1,249}$/;

function positiveNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new ConfigError(`${name}: "${raw}" is not a positive number`);
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): BridgeConfig {
  const addr = env.SLUICE_BRIDGE_ADDR ?? "127.0.0.1:8090";
  const match = addr.match(/^(.+):(\d{1,5})$/);
  const port = Number(match?.[2]);
  if (!match || port > 65535) throw new ConfigError(`SLUICE_BRIDGE_ADDR: "${addr}" is not host:port`);
  const kafkaBrokers = (env.KAFKA_BROKERS ?? "127.0.0.1:9092")
    .split(",")
    .map((b) => b.trim())
    .filter(Boolean);
  const bad = kafkaBrokers.find((b) => !/^[^\s:]+:\d{1,5}$/.test(b));
  if (kafkaBrokers.length === 0 || bad !== undefined) {
    throw new ConfigError(`KAFKA_BROKERS: "${bad ?? ""}" is not host:port`);
  }
  let kafka: KafkaSettings;
  try {
    kafka = loadKafkaSettings(env);
  } catch (err) {
    if (err instanceof KafkaSettingsError) throw new ConfigError(err.message);
    throw err;
  }
  const topicName = (name: string, fallback: string) => {
    const topic = env[name] || fallback;
    if (!TOPIC_NAME.test(topic) || topic === "." || topic === "..") {
      throw new ConfigError(`${name}: "${topic}" is not a valid Kafka topic name (letters, digits, . _ -; at most 249)`);
    }
    return topic;
  };
  const catalogTopic = topicName("SLUICE_CATALOG_TOPIC", DEFAULT_CATALOG_TOPIC);
  const usageTopic = topicName("SLUICE_USAGE_TOPIC", DEFAULT_USAGE_TOPIC);
  if (usageTopic === catalogTopic) throw new ConfigError(`SLUICE_USAGE_TOPIC: must differ from SLUICE_CATALOG_TOPIC ("${catalogTopic}")`);
  const usageRetentionSweepSeconds = positiveNumber(env, "SLUICE_USAGE_RETENTION_SWEEP_SECONDS", 3600);
  const killAfter = env.SLUICE_BRIDGE_TEST_KILL_AFTER_USAGE_RECORDS;
  const testKillAfterUsageRecords = killAfter ? positiveNumber(env, "SLUICE_BRIDGE_TEST_KILL_AFTER_USAGE_RECORDS", 1) : undefined;
  const stopAfter = env.SLUICE_BRIDGE_TEST_STOP_BEFORE_SEND_AFTER_ROWS;
  const testStopBeforeSendAfterRows = stopAfter ? positiveNumber(env, "SLUICE_BRIDGE_TEST_STOP_BEFORE_SEND_AFTER_ROWS", 1) : undefined;
  const sweepSeconds = positiveNumber(env, "SLUICE_BRIDGE_SWEEP_SECONDS", 30);
  const outboxRetentionDays = positiveNumber(env, "SLUICE_BRIDGE_OUTBOX_RETENTION_DAYS", 7);
  const leaseSeconds = positiveNumber(env, "SLUICE_BRIDGE_LEASE_SECONDS", 15);
  if (leaseSeconds < 3) throw new ConfigError(`SLUICE_BRIDGE_LEASE_SECONDS: "${leaseSeconds}" is below the minimum of 3`);
  let databaseUrl: string;
  try {
    databaseUrl = databaseUrlFromEnv(env);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  return {
    host: match[1]!,
    port,
    databaseUrl,
    kafkaBrokers,
    kafka,
    catalogTopic,
    sweepSeconds,
    leaseSeconds,
    outboxRetentionDays,
    usageTopic,
    usageRetentionSweepSeconds,
    ...(testKillAfterUsageRecords === undefined ? {} : { testKillAfterUsageRecords }),
    ...(testStopBeforeSendAfterRows === undefined ? {} : { testStopBeforeSendAfterRows }),
  };
}
