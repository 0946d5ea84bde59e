// The portal's runtime settings, read from the environment on every call so a
// built portal follows the deployment rather than the build machine.
import { AppError } from "./errors";

function env(name: string): string | undefined {
  const value = process.env[name]?.trim();
  return value ? value : undefined;
}

function positiveInt(name: string, fallback: number): number {
  const raw = env(name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

/** Token claims shared with the gateway (its SLUICE_TOKEN_ISSUER / SLUICE_TOKEN_AUDIENCE). */
export function tokenSettings() {
  return {
    issuer: env("SLUICE_TOKEN_ISSUER") ?? "sluice",
    audience: env("SLUICE_TOKEN_AUDIENCE") ?? "sluice-gateway",
    /** The longest lifetime a minted token may have; default 90 days. */
    maxLifetimeSeconds: positiveInt("SLUICE_TOKEN_MAX_LIFETIME_SECONDS", 90 * 24 * 3600),
  };
}

/**
 * The 32-byte key that encrypts signing keys at rest (SLUICE_SECRET_KEY, base64).
 * There is no fallback: without it nothing can be signed, and the portal says so.
 */
export function secretKey(): Buffer {
  const raw = env("SLUICE_SECRET_KEY");
  if (!raw) {
    throw new AppError(
      "misconfigured",
      500,
      "SLUICE_SECRET_KEY is not set: the portal cannot encrypt or use signing keys. Set it to 32 random bytes in base64 (openssl rand -base64 32).",
    );
  }
  const key = Buffer.from(raw, "base64");
  if (key.length !== 32)
    throw new AppError("misconfigured", 500, "SLUICE_SECRET_KEY must be 32 bytes in base64 (openssl rand -base64 32).");
  return key;
}

/**
 * Where browsers and clients reach the gateway: SLUICE_GATEWAY_PUBLIC_URL, one URL or
 * several gateway nodes separated by commas. The AsyncAPI document lists every
 * node (generated clients spread over them); the live console and hints use the first.
 */
export function gatewayPublicUrls(): string[] {
  const urls = (env("SLUICE_GATEWAY_PUBLIC_URL") ?? "http://127.0.0.1:8080")
    .split(",")
    .map((u) => u.trim())
    .filter(Boolean);
  return urls.length ? urls : ["http://127.0.0.1:8080"];
}

/** The first gateway node of SLUICE_GATEWAY_PUBLIC_URL. */
export function gatewayPublicUrl(): string {
  return gatewayPublicUrls()[0] as string;
}

/** The portal's own public origin, for links (setup, invitations) and the Secure cookie flag. */
export function portalPublicUrl(): string {
  return env("SLUICE_PORTAL_PUBLIC_URL") ?? "http://127.0.0.1:3000";
}

/** Where the portal probes the gateway's health for the status bar (server-side, so a private address works). */
export function gatewayHealthUrl(): string {
  return env("SLUICE_GATEWAY_HEALTH_URL") ?? "http://127.0.0.1:8080/healthz";
}

/** Where the portal probes the gateway bridge's health for the status bar. */
export function bridgeHealthUrl(): string {
  return env("SLUICE_BRIDGE_HEALTH_URL") ?? "http://127.0.0.1:8090/healthz";
}

/** Trust X-Forwarded-For for the client address (only behind a proxy that sets it). */
export function trustProxy(): boolean {
  return env("SLUICE_TRUST_PROXY") === "1";
}

export interface WebhookSettings {
  url: string;
  secret: string;
}

/**
 * The outgoing webhook for access requests: SLUICE_WEBHOOK_URL (http or https)
 * and SLUICE_WEBHOOK_SECRET (the HMAC key, at least 32 characters). Neither set:
 * no webhook. One without the other, or a bad value, is a misconfiguration the
 * portal reports instead of silently dropping calls.
 */
export function webhookSettings(): WebhookSettings | undefined {
  const url = env("SLUICE_WEBHOOK_URL");
  const secret = env("SLUICE_WEBHOOK_SECRET");
  if (!url && !secret) return undefined;
  if (!url || !secret)
    throw new AppError("misconfigured", 500, "Set both SLUICE_WEBHOOK_URL and SLUICE_WEBHOOK_SECRET for the webhook, or neither.");
  if (!/^https?:\/\/[^\s]+$/.test(url) || !URL.canParse(url))
    throw new AppError("misconfigured", 500, "SLUICE_WEBHOOK_URL must be an http:// or https:// URL.");
  if (secret.length < 32)
    throw new AppError("misconfigured", 500, "SLUICE_WEBHOOK_SECRET must be at least 32 characters (openssl rand -hex 32).");
  return { url, secret };
}

/**
 * Whether the portal's Kafka is the stack's own (SLUICE_KAFKA_MODE=local, which
 * `./sluice start` sets when it runs Kafka itself) rather than a cluster someone
 * else runs. Unset counts as external: the safe default for any other deployment.
 */
export function kafkaIsLocal(): boolean {
  return env("SLUICE_KAFKA_MODE") === "local";
}

/**
 * Whether editors may create Kafka topics from the portal. On with the stack's
 * own Kafka; with an external one only when the operator sets
 * SLUICE_TOPIC_CREATION=on (and then the cluster's ACLs decide through the
 * portal's principal). SLUICE_TOPIC_CREATION=off turns it off everywhere.
 */
export function topicCreationEnabled(): boolean {
  const raw = env("SLUICE_TOPIC_CREATION");
  if (raw === undefined) return kafkaIsLocal();
  if (raw !== "on" && raw !== "off")
    throw new AppError(
      "misconfigured",
      500,
      `SLUICE_TOPIC_CREATION must be on or off (unset: on only with the stack's own Kafka), got "${raw}".`,
    );
  return raw === "on";
}
