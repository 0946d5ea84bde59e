import assert from "node:assert/strict";
import { test } from "node:test";
import { bucketOf, HOUR_MS, MINUTE_MS, parseUsageRecord } from "./usage-record.ts";

const app = "5d1f7c2e-0000-4000-8000-000000000001";
const endpoint = "8c0e7c2e-0000-4000-8000-000000000002";
const sample = () => ({
  v: 1,
  node: "gw-3f9c2a",
  version: "0.1.0",
  started_at: 1795000000000,
  interval_start: 1795000005000,
  interval_end: 1795000010000,
  final: false,
  catalog_offset_lag: 0,
  connections: 12,
  apps: [
    {
      app,
      connections: 3,
      refused: { connections: 1 },
      endpoints: [
        {
          endpoint,
          path: "/prices/{symbol}",
          subscriptions: 4,
          delivered: 1200,
          delivered_bytes: 34000,
          published: 3,
          published_bytes: 120,
          errors: 0,
          refused: { subscriptions: 0, publish: 2, delivered: 0 },
        },
      ],
    },
  ],
});
const parse = (v: unknown) => parseUsageRecord(Buffer.from(typeof v === "string" ? v : JSON.stringify(v)));

test("the contract's example parses as written", () => {
  const r = parse(sample());
  assert.ok(r.ok);
  assert.deepEqual(r.record, sample());
});

test("an app subscribed to nothing: endpoints left out, or null as older gateways wrote it, count as none", () => {
  for (const endpoints of [undefined, null]) {
    const v = sample();
    const connectedOnly: Record<string, unknown> = { app: "5d1f7c2e-0000-4000-8000-000000000003", connections: 2 };
    if (endpoints === null) connectedOnly.endpoints = null;
    (v.apps as unknown[]).push(connectedOnly);
    const r = parse(v);
    assert.ok(r.ok, r.ok ? "" : r.reason);
    assert.deepEqual(r.record.apps[1]!.endpoints, []);
    assert.equal(r.record.apps[1]!.connections, 2);
  }
});

test("unknown members are ignored and left-out counters are zero", () => {
  const v = sample() as Record<string, unknown>;
  v.future = { x: 1 };
  const a = (v.apps as Array<Record<string, unknown>>)[0]!;
  delete a.refused;
  a.endpoints = [{ endpoint, path: "/p/{k}", delivered: 5, later: true }];
  const r = parse(v);
  assert.ok(r.ok);
  assert.equal("future" in r.record, false);
  assert.deepEqual(r.record.apps[0]!.refused, { connections: 0 });
  assert.deepEqual(r.record.apps[0]!.endpoints[0], {
    endpoint,
    path: "/p/{k}",
    subscriptions: 0,
    delivered: 5,
    delivered_bytes: 0,
    published: 0,
    published_bytes: 0,
    errors: 0,
    refused: { subscriptions: 0, publish: 0, delivered: 0 },
  });
});

test("a bad record gets a reason that names the field and never echoes values", () => {
  assert.deepEqual(parseUsageRecord(null), { ok: false, reason: "empty value (tombstone)" });
  assert.deepEqual(parse("{not json"), { ok: false, reason: "value is not JSON" });
  const cases: Array<[(v: ReturnType<typeof sample>) => unknown, RegExp]> = [
    [(v) => ({ ...v, v: 2 }), /^v:/],
    [(v) => ({ ...v, node: "" }), /^node:/],
    [(v) => ({ ...v, interval_end: v.interval_start }), /^interval_end: interval_end must be after/],
    [(v) => ({ ...v, connections: -1 }), /^connections:/],
    [(v) => ({ ...v, apps: [v.apps[0], v.apps[0]] }), /an app appears twice/],
    [(v) => ({ ...v, apps: [{ ...v.apps[0], endpoints: [v.apps[0]!.endpoints[0], v.apps[0]!.endpoints[0]] }] }), /endpoint appears twice/],
    [() => [1, 2], /^value:/],
  ];
  for (const [mutate, reason] of cases) {
    const r = parse(mutate(sample()));
    assert.equal(r.ok, false);
    if (!r.ok) {
      assert.match(r.reason, reason);
      assert.doesNotMatch(r.reason, /secret/);
    }
  }
});

test("a malformed app entry is left out with a reason naming its field; the other apps are counted", () => {
  const v = sample();
  const other = { ...v.apps[0]!, app: "5d1f7c2e-0000-4000-8000-000000000009" };
  const bad = [
    { ...v.apps[0], app: "secret-not-a-uuid" },
    { app, connections: "secret" },
    { ...v.apps[0], endpoints: [{ ...v.apps[0]!.endpoints[0], delivered: 1.5 }] },
  ];
  const r = parse({ ...v, apps: [bad[0], other, bad[1], bad[2]] });
  assert.ok(r.ok, r.ok ? "" : r.reason);
  assert.deepEqual(
    r.record.apps.map((a) => a.app),
    [other.app],
  );
  assert.equal(r.skippedApps.length, 3);
  assert.match(r.skippedApps[0]!, /^apps\.0\.app:/);
  assert.match(r.skippedApps[1]!, /^apps\.2\.connections:/);
  // A bad endpoint entry costs its app's entry (the app's counts are one row set).
  assert.match(r.skippedApps[2]!, /^apps\.3\.endpoints\.0\.delivered:/);
  for (const reason of r.skippedApps) assert.doesNotMatch(reason, /secret/);
  const clean = parse(sample());
  assert.ok(clean.ok);
  assert.deepEqual(clean.skippedApps, [], "a good record skips nothing");
});

test("an interval is counted in the minute and hour its start falls into", () => {
  assert.equal(bucketOf(1795000005000, MINUTE_MS), 1794999960000);
  assert.equal(bucketOf(1795000005000, HOUR_MS), 1794999600000);
  assert.equal(bucketOf(1794999960000, MINUTE_MS), 1794999960000);
});

test("gauges must fit the database's integer columns", () => {
  const r = parse({ ...sample(), connections: 2 ** 31 });
  assert.equal(r.ok, false);
  if (!r.ok) assert.match(r.reason, /^connections:/);
  assert.ok(parse({ ...sample(), connections: 2 ** 31 - 1 }).ok);
});
