// The bridge's configuration, from the environment, validated at start.
import { databaseUrlFromEnv } from "@sluice/db";

export interface BridgeConfig {
  /** host:port of the health/metrics listener. Env SLUICE_BRIDGE_ADDR, default 127.0.0.1:8090. */
  host: string;
  port: number;
  databaseUrl: string;
  /** Env KAFKA_BROKERS (comma-separated), default 127.0.0.1:9092. */
  kafkaBrokers: string[];
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): BridgeConfig {
  const addr = env.SLUICE_BRIDGE_ADDR ?? "127.0.0.1:8090";
  const match = addr.match(/^(.+):(\d{1,5})$/);
  const port = Number(match?.[2]);
  if (!match || port > 65535) throw new ConfigError(`SLUICE_BRIDGE_ADDR: "${addr}" is not host:port`);
  const kafkaBrokers = (env.KAFKA_BROKERS ?? "127.0.0.1:9092").split(",").map((b) => b.trim()).filter(Boolean);
  const bad = kafkaBrokers.find((b) => !/^[^\s:]+:\d{1,5}$/.test(b));
  if (kafkaBrokers.length === 0 || bad !== undefined) {
    throw new ConfigError(`KAFKA_BROKERS: "${bad ?? ""}" is not host:port`);
  }
  let databaseUrl: string;
  try {
    databaseUrl = databaseUrlFromEnv(env);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  return { host: match[1]!, port, databaseUrl, kafkaBrokers };
}
