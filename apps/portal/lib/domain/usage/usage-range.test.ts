import assert from "node:assert/strict";
import { test } from "node:test";

import type { UsagePoint } from "./get-usage";
import { usageCsv } from "./usage-csv";
import { usageWindow } from "./usage-range";

const now = Date.UTC(2026, 10, 25, 1, 30, 42, 500);

test("hour and day read one minute bucket per point, ending with the current minute", () => {
  const hour = usageWindow("hour", now);
  assert.equal(hour.granularity, "minute");
  assert.equal(hour.bucketSeconds, 60);
  assert.equal(hour.buckets.length, 60);
  assert.equal(hour.to.toISOString(), "2026-11-25T01:30:00.000Z");
  assert.equal(hour.from.toISOString(), "2026-11-25T00:31:00.000Z");
  const day = usageWindow("day", now);
  assert.equal(day.buckets.length, 1440);
  assert.equal(day.buckets[1]!.getTime() - day.buckets[0]!.getTime(), 60_000);
});

test("week reads one hour bucket per point", () => {
  const week = usageWindow("week", now);
  assert.equal(week.granularity, "hour");
  assert.equal(week.bucketSeconds, 3600);
  assert.equal(week.buckets.length, 168);
  assert.equal(week.to.toISOString(), "2026-11-25T01:00:00.000Z");
  assert.equal(week.from.toISOString(), "2026-11-18T02:00:00.000Z");
});

test("the CSV has a header and one row per point; a value the scope lacks is an empty cell", () => {
  const point = (time: string, connections: number | null): UsagePoint => ({
    time: new Date(time),
    deliveredPerSecond: 2.5,
    deliveredBytesPerSecond: 100,
    publishedPerSecond: 0,
    publishedBytesPerSecond: 0,
    subscriptions: 3,
    connections,
    errors: 1,
    refusedConnections: connections === null ? null : 0,
    refusedSubscriptions: 0,
    refusedPublish: 2,
    refusedDelivered: 0,
  });
  assert.equal(
    usageCsv([point("2026-11-25T01:00:00Z", 4), point("2026-11-25T01:01:00Z", null)]),
    "time,delivered_per_second,delivered_bytes_per_second,published_per_second,published_bytes_per_second,subscriptions,connections,errors,refused_connections,refused_subscriptions,refused_publish,refused_delivered\r\n" +
      "2026-11-25T01:00:00.000Z,2.5,100,0,0,3,4,1,0,0,2,0\r\n" +
      "2026-11-25T01:01:00.000Z,2.5,100,0,0,3,,1,,0,2,0\r\n",
  );
});
