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

/**
 * The record around its apps. Each app is checked on its own (parseUsageRecord):
 * one bad entry costs that app's counts, not every app's of the interval.
 */
const usageEnvelope = z
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
    apps: z.array(z.unknown()).max(100_000),
  })
  .refine((r) => r.interval_end > r.interval_start, { message: "interval_end must be after interval_start", path: ["interval_end"] })
  .refine((r) => r.interval_end - r.interval_start <= 3_600_000, { message: "an interval spans at most an hour", path: ["interval_end"] });

export type AppUsage = z.output<typeof appUsage>;
export type EndpointUsage = AppUsage["endpoints"][number];
export type UsageRecord = Omit<z.output<typeof usageEnvelope>, "apps"> & { apps: AppUsage[] };

export type ParseResult =
  | {
      ok: true;
      record: UsageRecord;
      /** Why app entries were left out (each names its field, e.g. "apps.3.app: Invalid UUID"); the rest is counted. */
      skippedApps: string[];
    }
  | { ok: false; reason: string };

const reasonOf = (error: z.ZodError, prefix: string) => {
  const issue = error.issues[0]!;
  return `${[prefix, ...issue.path].filter((p) => p !== "").join(".") || "value"}: ${issue.message}`;
};

/** Parses a record value; the reason names fields, never values, so it is safe to log. */
export function parseUsageRecord(value: Buffer | null): ParseResult {
  if (value === null) return { ok: false, reason: "empty value (tombstone)" };
  let json: unknown;
  try {
    json = JSON.parse(value.toString("utf8"));
  } catch {
    return { ok: false, reason: "value is not JSON" };
  }
  const envelope = usageEnvelope.safeParse(json);
  if (!envelope.success) return { ok: false, reason: reasonOf(envelope.error, "") };
  const record: UsageRecord = { ...envelope.data, apps: [] };
  const skippedApps: string[] = [];
  envelope.data.apps.forEach((raw, i) => {
    const app = appUsage.safeParse(raw);
    if (app.success) record.apps.push(app.data);
    else skippedApps.push(reasonOf(app.error, `apps.${i}`));
  });
  // One row per app and per app × endpoint: a repeated id has no defined meaning.
  if (new Set(record.apps.map((a) => a.app)).size !== record.apps.length) return { ok: false, reason: "apps: an app appears twice" };
  if (!record.apps.every((a) => new Set(a.endpoints.map((e) => e.endpoint)).size === a.endpoints.length)) {
    return { ok: false, reason: "apps: an endpoint appears twice under one app" };
  }
  return { ok: true, record, skippedApps };
}

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;

/** The bucket an interval is counted in: the one its start falls into. */
export const bucketOf = (ms: number, size: number) => Math.floor(ms / size) * size;
