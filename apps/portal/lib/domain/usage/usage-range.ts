// The time ranges of the traffic views and the buckets each one reads: the last
// hour and day from the minute buckets, the last week from the hour buckets
// (minute buckets are kept 7 days, hour buckets 90; see the bridge's aggregator).
export const USAGE_RANGES = ["hour", "day", "week"] as const;
export type UsageRange = (typeof USAGE_RANGES)[number];

export interface UsageWindow {
  range: UsageRange;
  /** minute or hour buckets. */
  granularity: "minute" | "hour";
  bucketSeconds: number;
  /** Start of the first and of the last bucket (the current, still filling one). */
  from: Date;
  to: Date;
  /** Every bucket start, oldest first: the series has a point for each, zero when nothing happened. */
  buckets: Date[];
}

const SHAPE: Record<UsageRange, { granularity: "minute" | "hour"; bucketMs: number; count: number }> = {
  hour: { granularity: "minute", bucketMs: 60_000, count: 60 },
  day: { granularity: "minute", bucketMs: 60_000, count: 1440 },
  week: { granularity: "hour", bucketMs: 3_600_000, count: 168 },
};

export function usageWindow(range: UsageRange, now: number = Date.now()): UsageWindow {
  const { granularity, bucketMs, count } = SHAPE[range];
  const last = Math.floor(now / bucketMs) * bucketMs;
  const first = last - (count - 1) * bucketMs;
  const buckets = Array.from({ length: count }, (_, i) => new Date(first + i * bucketMs));
  return { range, granularity, bucketSeconds: bucketMs / 1000, from: new Date(first), to: new Date(last), buckets };
}
