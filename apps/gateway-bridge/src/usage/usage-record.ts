// The usage record a gateway node writes every interval (the contract: docs/
// architecture.md, "Usage metering"). parseUsageRecord turns a Kafka value into
// a checked record or says why it cannot be counted; unknown members are ignored
// (zod strips them), so a newer gateway's additions never stop the aggregator.
import { z } from "zod";

const count = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
/** Gauges (connections, subscriptions) are stored as PostgreSQL integers. */
const gauge = z.number().int().nonnegative().max(2_147_483_647);
/** A counter that a gateway may leave out when it is zero. */
const optionalCount = count.optional().default(0);
const optionalGauge = gauge.optional().default(0);
const epochMs = z.number().int().positive().max(8_640_000_000_000);

const endpointUsage = z.object({
  endpoint: z.uuid(),
  path: z.string().min(1).max(1024),
  subscriptions: optionalGauge,
  delivered: optionalCount,
  delivered_bytes: optionalCount,
  published: optionalCount,
  published_bytes: optionalCount,
  errors: optionalCount,
  refused: z
    .object({ subscriptions: optionalCount, publish: optionalCount, delivered: optionalCount })
    .optional()
    .default({ subscriptions: 0, publish: 0, delivered: 0 }),
});

const appUsage = z.object({
  app: z.uuid(),
  connections: optionalGauge,
  refused: z.object({ connections: optionalCount }).optional().default({ connections: 0 }),
  // Gateways before 2026-11-28 wrote null for an app subscribed to nothing; it
  // was refused with the whole record (every app's counts of that interval).
  endpoints: z
    .array(endpointUsage)
    .max(100_000)
    .nullish()
    .transform((endpoints) => endpoints ?? []),
});

const usageRecord = z
  .object({
    v: z.literal(1),
    node: z.string().min(1).max(200),
    version: z.string().max(100),
    started_at: epochMs,
    interval_start: epochMs,
    interval_end: epochMs,
    final: z.boolean(),
    catalog_offset_lag: count,
    connections: gauge,
    apps: z.array(appUsage).max(100_000),
  })
  .refine((r) => r.interval_end > r.interval_start, { message: "interval_end must be after interval_start", path: ["interval_end"] })
  .refine((r) => r.interval_end - r.interval_start <= 3_600_000, { message: "an interval spans at most an hour", path: ["interval_end"] })
  // One row per app and per app × endpoint: a repeated id has no defined meaning.
  .refine((r) => new Set(r.apps.map((a) => a.app)).size === r.apps.length, { message: "an app appears twice", path: ["apps"] })
  .refine((r) => r.apps.every((a) => new Set(a.endpoints.map((e) => e.endpoint)).size === a.endpoints.length), {
    message: "an endpoint appears twice under one app",
    path: ["apps"],
  });

export type UsageRecord = z.output<typeof usageRecord>;
export type AppUsage = UsageRecord["apps"][number];
export type EndpointUsage = AppUsage["endpoints"][number];

export type ParseResult = { ok: true; record: UsageRecord } | { ok: false; reason: string };

/** Parses a record value; the reason names fields, never values, so it is safe to log. */
export function parseUsageRecord(value: Buffer | null): ParseResult {
  if (value === null) return { ok: false, reason: "empty value (tombstone)" };
  let json: unknown;
  try {
    json = JSON.parse(value.toString("utf8"));
  } catch {
    return { ok: false, reason: "value is not JSON" };
  }
  const parsed = usageRecord.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { ok: false, reason: `${issue.path.join(".") || "value"}: ${issue.message}` };
  }
  return { ok: true, record: parsed.data };
}

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;

/** The bucket an interval is counted in: the one its start falls into. */
export const bucketOf = (ms: number, size: number) => Math.floor(ms / size) * size;
