// The usage aggregator against the real Kafka and PostgreSQL: exact sums from
// two nodes, each interval counted once across a crash between the database
// commit and the offset commit, retention, and bad records skipped.
import assert from "node:assert/strict";
import { test } from "node:test";
import { loadKafkaSettings } from "@sluice/kafka-settings";
import { BridgeMetrics } from "../src/metrics.ts";
import { startUsageAggregator } from "../src/usage/aggregator.ts";
import { kafka, waitFor, type ScratchDb } from "./helpers.ts";
import {
  asRecords,
  endpointEntry,
  metricValue,
  newId,
  nodeRecords,
  produceUsage,
  startAggregatingBridge,
  usageFixtures,
  type UsageRecordValue,
} from "./usage-helpers.ts";

const fixture = usageFixtures();
const MINUTE = 60_000;
const HOUR = 3_600_000;

async function countedIntervals(db: ScratchDb): Promise<number> {
  const { rows } = await db.pool.query<{ n: string }>("select count(*)::text as n from usage_intervals");
  return Number(rows[0]!.n);
}

/** What the contract says the buckets must hold, computed from the records in memory. */
function expectedBuckets(records: UsageRecordValue[], size: number) {
  const counters = ["delivered", "delivered_bytes", "published", "published_bytes", "errors"] as const;
  // Gauges: per minute the sum over nodes of each node's peak; per hour the peak of those minute sums.
  const perNodeMinute = new Map<string, number>();
  const endpointRows = new Map<string, Record<string, number>>();
  const appRows = new Map<string, { connections: number; refused_connections: number }>();
  for (const r of records) {
    const minute = Math.floor(r.interval_start / MINUTE) * MINUTE;
    const bucket = Math.floor(r.interval_start / size) * size;
    for (const a of r.apps) {
      const nk = `app|${minute}|${a.app}|${r.node}`;
      perNodeMinute.set(nk, Math.max(perNodeMinute.get(nk) ?? 0, a.connections));
      const ak = `${bucket}|${a.app}`;
      const row = appRows.get(ak) ?? { connections: 0, refused_connections: 0 };
      row.refused_connections += a.refused.connections;
      appRows.set(ak, row);
      for (const e of a.endpoints) {
        const sk = `ep|${minute}|${a.app}|${e.endpoint}|${r.node}`;
        perNodeMinute.set(sk, Math.max(perNodeMinute.get(sk) ?? 0, e.subscriptions));
        const ek = `${bucket}|${a.app}|${e.endpoint}`;
        const er = endpointRows.get(ek) ?? {
          subscriptions: 0,
          delivered: 0,
          delivered_bytes: 0,
          published: 0,
          published_bytes: 0,
          errors: 0,
          refused_subscriptions: 0,
          refused_publish: 0,
          refused_delivered: 0,
        };
        for (const c of counters) er[c]! += e[c];
        er.refused_subscriptions! += e.refused.subscriptions;
        er.refused_publish! += e.refused.publish;
        er.refused_delivered! += e.refused.delivered;
        endpointRows.set(ek, er);
      }
    }
  }
  const minuteSums = new Map<string, number>();
  for (const [k, v] of perNodeMinute) {
    const parts = k.split("|");
    const key = parts.slice(0, -1).join("|");
    minuteSums.set(key, (minuteSums.get(key) ?? 0) + v);
  }
  for (const [k, v] of minuteSums) {
    const [kind, minute, app, endpoint] = k.split("|");
    const bucket = Math.floor(Number(minute) / size) * size;
    if (kind === "app") {
      const row = appRows.get(`${bucket}|${app}`)!;
      row.connections = Math.max(row.connections, v);
    } else {
      const row = endpointRows.get(`${bucket}|${app}|${endpoint}`)!;
      row.subscriptions = Math.max(row.subscriptions!, v);
    }
  }
  return { endpointRows, appRows };
}

/** The buckets in the database, summed over nodes where the table has a node column, as the portal reads them. */
async function actualBuckets(db: ScratchDb, size: "minute" | "hour") {
  const endpointTable = size === "minute" ? "usage_endpoint_minutes" : "usage_endpoint_hours";
  const appTable = size === "minute" ? "usage_app_minutes" : "usage_app_hours";
  const { rows: eps } = await db.pool.query(
    `select (extract(epoch from bucket_start) * 1000)::bigint::text as bucket, app_id, endpoint_id,
            sum(subscriptions)::int as subscriptions, sum(delivered)::int as delivered, sum(delivered_bytes)::int as delivered_bytes,
            sum(published)::int as published, sum(published_bytes)::int as published_bytes, sum(errors)::int as errors,
            sum(refused_subscriptions)::int as refused_subscriptions, sum(refused_publish)::int as refused_publish,
            sum(refused_delivered)::int as refused_delivered
       from ${endpointTable} group by 1, 2, 3`,
  );
  const { rows: apps } = await db.pool.query(
    `select (extract(epoch from bucket_start) * 1000)::bigint::text as bucket, app_id,
            sum(connections)::int as connections, sum(refused_connections)::int as refused_connections
       from ${appTable} group by 1, 2`,
  );
  const endpointRows = new Map<string, Record<string, number>>();
  for (const { bucket, app_id, endpoint_id, ...rest } of eps) endpointRows.set(`${bucket}|${app_id}|${endpoint_id}`, rest);
  const appRows = new Map<string, { connections: number; refused_connections: number }>();
  for (const { bucket, app_id, ...rest } of apps) appRows.set(`${bucket}|${app_id}`, rest);
  return { endpointRows, appRows };
}

test("records from two nodes sum exactly into minute and hour buckets; node rows follow each node's last record", async () => {
  const fx = await fixture();
  const bridge = await startAggregatingBridge(fx);

  // The bridge made the usage topic with the contract's settings.
  const admin = kafka.admin();
  await admin.connect();
  const meta = await admin.fetchTopicMetadata({ topics: [fx.usageTopic] });
  const configs = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: 2, name: fx.usageTopic, configNames: ["cleanup.policy", "retention.ms"] }],
  });
  await admin.disconnect();
  assert.equal(meta.topics[0]!.partitions.length, 3);
  const config = Object.fromEntries(configs.resources[0]!.configEntries.map((e) => [e.configName, e.configValue]));
  assert.deepEqual(config, { "cleanup.policy": "delete", "retention.ms": String(7 * 86_400_000) });

  const [appA, appB] = [newId(), newId()];
  const [ep1, ep2] = [newId(), newId()];
  // 40 s before a minute boundary, so both nodes' intervals span two minutes (and, at 00:59:20, maybe two hours).
  const from = Math.floor(Date.now() / HOUR) * HOUR - 40_000;
  const nodeA = nodeRecords({
    node: `gw-a-${newId().slice(0, 6)}`,
    from,
    count: 16,
    apps: (i) => [
      {
        app: appA,
        connections: 2 + (i % 3),
        refused: { connections: i % 2 },
        endpoints: [endpointEntry(ep1, i), endpointEntry(ep2, i * 3, "/orders/eu")],
      },
      ...(i % 4 === 0 ? [{ app: appB, connections: 1, refused: { connections: 0 }, endpoints: [endpointEntry(ep1, i + 7)] }] : []),
    ],
  });
  // Node B reports on another phase and interval length.
  const nodeB = nodeRecords({
    node: `gw-b-${newId().slice(0, 6)}`,
    from: from + 1700,
    intervalMs: 7000,
    count: 11,
    finalLast: true,
    apps: (i) => [
      { app: appB, connections: 5 - (i % 5), refused: { connections: 2 }, endpoints: [endpointEntry(ep1, i * 11)] },
      // An app with only a connection (no endpoint activity).
      { app: appA, connections: 1, refused: { connections: 0 }, endpoints: [] },
    ],
  });
  const all = [...nodeA, ...nodeB];
  // Interleaved, as two nodes writing at once.
  const interleaved = all.slice().sort((x, y) => x.interval_end - y.interval_end);
  await produceUsage(fx.usageTopic, asRecords(interleaved));
  await waitFor("every interval counted", async () => (await countedIntervals(fx.db)) === all.length);

  for (const [size, ms] of [
    ["minute", MINUTE],
    ["hour", HOUR],
  ] as const) {
    const expected = expectedBuckets(all, ms);
    const actual = await actualBuckets(fx.db, size);
    assert.deepEqual(Object.fromEntries(actual.endpointRows), Object.fromEntries(expected.endpointRows), `${size} endpoint buckets`);
    assert.deepEqual(Object.fromEntries(actual.appRows), Object.fromEntries(expected.appRows), `${size} app buckets`);
  }
  // The path is kept for display.
  const { rows: paths } = await fx.db.pool.query("select distinct endpoint_id, path from usage_endpoint_hours order by path");
  assert.deepEqual(
    paths.map((p) => [p.endpoint_id, p.path]),
    [
      [ep2, "/orders/eu"],
      [ep1, "/prices/{symbol}"],
    ],
  );

  const { rows: nodes } = await fx.db.pool.query(
    `select node, version, (extract(epoch from started_at) * 1000)::bigint::text as started, (extract(epoch from last_seen_at) * 1000)::bigint::text as seen,
            interval_ms, connections, catalog_offset_lag, final from usage_nodes order by node`,
  );
  const last = (rs: UsageRecordValue[]) => rs[rs.length - 1]!;
  assert.deepEqual(
    nodes,
    [last(nodeA), last(nodeB)].map((r) => ({
      node: r.node,
      version: "0.1.0-test",
      started: String(r.started_at),
      seen: String(r.interval_end),
      interval_ms: r.interval_end - r.interval_start,
      connections: r.connections,
      catalog_offset_lag: String(r.catalog_offset_lag),
      final: r.final,
    })),
  );
  assert.equal(nodes[1]?.final, true);

  const metrics = await bridge.metrics();
  assert.equal(metricValue(metrics, 'sluice_bridge_usage_records_total{result="counted"}'), all.length);
  assert.equal(metricValue(metrics, 'sluice_bridge_usage_records_total{result="duplicate"}'), 0);
  assert.equal(await bridge.stop(), 0, bridge.output());
});

test("a crash after the database commit and before the offset commit: the redelivered records are counted once", async () => {
  const fx = await fixture();
  const app = newId();
  const endpoint = newId();
  const records = nodeRecords({
    node: `gw-crash-${newId().slice(0, 6)}`,
    from: Date.now() - 120_000,
    count: 12,
    apps: (i) => [{ app, connections: 1, refused: { connections: 0 }, endpoints: [endpointEntry(endpoint, i)] }],
  });

  const first = await startAggregatingBridge(fx, { SLUICE_BRIDGE_TEST_KILL_AFTER_USAGE_RECORDS: "5" });
  await produceUsage(fx.usageTopic, asRecords(records));
  const exitCode = await new Promise<number | null>((resolve) => {
    if (first.child.exitCode !== null || first.child.signalCode !== null) resolve(first.child.exitCode);
    else first.child.once("exit", (code) => resolve(code));
  });
  assert.equal(exitCode, null, "killed by its own SIGKILL");
  assert.match(first.output(), /test hook: killing the bridge after 5 counted usage records/);
  assert.equal(await countedIntervals(fx.db), 5, "five records committed in PostgreSQL when it died");

  // Kafka still has the group's old offset (none, or before record 5): the restarted bridge gets them again.
  const second = await startAggregatingBridge(fx);
  await waitFor("all twelve intervals counted", async () => (await countedIntervals(fx.db)) === records.length);
  await waitFor("the redelivered records skipped", async () => {
    const m = await second.metrics();
    return metricValue(m, 'sluice_bridge_usage_records_total{result="counted"}') === 7 &&
      metricValue(m, 'sluice_bridge_usage_records_total{result="duplicate"}') >= 1
      ? m
      : undefined;
  });
  const { rows } = await fx.db.pool.query(
    "select sum(delivered)::int as delivered, sum(refused_publish)::int as refused_publish from usage_endpoint_minutes",
  );
  const sum = (pick: (r: UsageRecordValue) => number) => records.reduce((n, r) => n + pick(r), 0);
  assert.deepEqual(rows[0], {
    delivered: sum((r) => r.apps[0]!.endpoints[0]!.delivered),
    refused_publish: sum((r) => r.apps[0]!.endpoints[0]!.refused.publish),
  });
  const { rows: hours } = await fx.db.pool.query("select sum(delivered)::int as delivered from usage_endpoint_hours");
  assert.equal(hours[0].delivered, rows[0].delivered);
  assert.equal(await second.stop(), 0, second.output());
});

test("retention deletes minute buckets, idempotency and node rows after 7 days and hour buckets after 90", async () => {
  const fx = await fixture();
  const app = newId();
  const endpoint = newId();
  const day = 86_400_000;
  const at = (ageMs: number, node: string) =>
    nodeRecords({
      node,
      from: Math.floor((Date.now() - ageMs) / MINUTE) * MINUTE,
      count: 1,
      apps: (i) => [{ app, connections: 1, refused: { connections: 0 }, endpoints: [endpointEntry(endpoint, i)] }],
    })[0]!;
  const records = [at(5 * 60_000, "gw-now"), at(8 * day, "gw-8d"), at(91 * day, "gw-91d")];
  const bridge = await startAggregatingBridge(fx, { SLUICE_USAGE_RETENTION_SWEEP_SECONDS: "1" });
  await produceUsage(fx.usageTopic, asRecords(records));
  await waitFor("three records counted", async () =>
    metricValue(await bridge.metrics(), 'sluice_bridge_usage_records_total{result="counted"}') === 3 ? true : undefined,
  );
  const ages = async (table: string, column: string) => {
    const { rows } = await fx.db.pool.query<{ days: number }>(
      `select floor(extract(epoch from now() - ${column}) / 86400)::int as days from ${table} order by 1`,
    );
    return rows.map((r) => r.days);
  };
  // The next sweeps (every second) remove what is past retention. A sweep
  // deletes table by table, usage_app_hours last: waiting on the first table
  // alone raced the sweep's later statements (an 8-day hour row seen as 91).
  await waitFor("a whole sweep", async () => (await ages("usage_app_hours", "bucket_start")).length === 2);
  assert.deepEqual(await ages("usage_endpoint_minutes", "bucket_start"), [0]);
  assert.deepEqual(await ages("usage_app_minutes", "bucket_start"), [0]);
  assert.deepEqual(await ages("usage_intervals", "interval_start"), [0]);
  assert.deepEqual(await ages("usage_endpoint_hours", "bucket_start"), [0, 8]);
  assert.deepEqual(await ages("usage_app_hours", "bucket_start"), [0, 8]);
  const { rows: nodes } = await fx.db.pool.query("select node from usage_nodes");
  assert.deepEqual(
    nodes.map((n) => n.node),
    ["gw-now"],
  );
  assert.ok(metricValue(await bridge.metrics(), "sluice_bridge_usage_retention_deleted_rows_total") >= 7);
  assert.equal(await bridge.stop(), 0, bridge.output());
});

test("a record that is not JSON or has the wrong shape is logged by id, skipped and counted in a metric; a malformed app costs only its own counts", async () => {
  const fx = await fixture();
  const bridge = await startAggregatingBridge(fx);
  const good = nodeRecords({
    node: "gw-good",
    from: Date.now() - 60_000,
    count: 1,
    apps: () => [{ app: newId(), connections: 4, refused: { connections: 0 }, endpoints: [] }],
  })[0]!;
  const wrongShape = { ...good, node: "gw-bad", connections: "SECRET-PAYLOAD" };
  // One malformed app (a test token's app id is not a UUID): left out, the rest counted.
  const partial = {
    ...good,
    node: "gw-partial",
    connections: 5,
    apps: [...good.apps, { app: "SECRET-PAYLOAD", connections: 1, refused: { connections: 0 }, endpoints: [] }],
  };
  await produceUsage(fx.usageTopic, [
    { key: "gw-bad", value: "SECRET-PAYLOAD not json" },
    { key: "gw-bad", value: JSON.stringify(wrongShape) },
    { key: "gw-partial", value: partial },
    { key: "gw-good", value: good },
  ]);
  await waitFor("the good and the partial record counted", async () => (await countedIntervals(fx.db)) === 2);
  await waitFor("both bad records skipped", async () =>
    metricValue(await bridge.metrics(), 'sluice_bridge_usage_records_total{result="invalid"}') === 2 ? true : undefined,
  );
  const metrics = await bridge.metrics();
  assert.equal(metricValue(metrics, 'sluice_bridge_usage_records_total{result="counted"}'), 2);
  assert.equal(metricValue(metrics, "sluice_bridge_usage_apps_skipped_total"), 1);
  const out = bridge.output();
  assert.match(out, /usage record skipped \(partition \d offset \d+ key gw-bad\): value is not JSON/);
  assert.match(out, /usage record skipped \(partition \d offset \d+ key gw-bad\): connections:/);
  assert.match(out, /usage record \(partition \d offset \d+ key gw-partial\) counted without 1 of 2 apps: apps\.1\.app:/);
  assert.doesNotMatch(out, /SECRET-PAYLOAD/, "the payload is never logged");
  const { rows } = await fx.db.pool.query("select node, connections from usage_nodes order by node");
  assert.deepEqual(rows, [
    { node: "gw-good", connections: 4 },
    { node: "gw-partial", connections: 5 },
  ]);
  const { rows: apps } = await fx.db.pool.query("select distinct app_id from usage_app_minutes");
  assert.deepEqual(
    apps.map((a) => a.app_id),
    [good.apps[0]!.app],
    "the partial record's good app counted, the malformed one not",
  );
  assert.equal((await bridge.health()).status, 200);
  assert.equal(await bridge.stop(), 0, bridge.output());
});

test("a usage consumer that stops reading without a sign is started again by its stall watchdog", async () => {
  // What kafkajs did after a full broker outage, made on purpose: the
  // consumer stops fetching (paused) with no crash, while records wait.
  const fx = await fixture();
  const made: ReturnType<typeof kafka.consumer>[] = [];
  const watchedKafka = {
    consumer(config: Parameters<typeof kafka.consumer>[0]) {
      const consumer = kafka.consumer(config);
      made.push(consumer);
      return consumer;
    },
    admin: () => kafka.admin(),
  } as unknown as typeof kafka;
  const aggregator = startUsageAggregator({
    kafka: watchedKafka,
    kafkaSettings: loadKafkaSettings(),
    pool: fx.db.pool,
    metrics: new BridgeMetrics(fx.db.pool),
    topic: fx.usageTopic,
    retentionSweepSeconds: 3600,
    watchdogMs: 300,
  });
  try {
    const records = nodeRecords({
      node: "gw-stall",
      from: Date.now() - 10 * 60_000,
      count: 2,
      apps: () => [{ app: newId(), connections: 1, refused: { connections: 0 }, endpoints: [] }],
    });
    await produceUsage(fx.usageTopic, asRecords(records.slice(0, 1)));
    await waitFor("the first record counted", async () => ((await countedIntervals(fx.db)) === 1 ? true : undefined));
    assert.equal(made.length, 1);
    made[0]!.pause([{ topic: fx.usageTopic }]);
    await produceUsage(fx.usageTopic, asRecords(records.slice(1)));
    await waitFor("the second record counted", async () => ((await countedIntervals(fx.db)) === 2 ? true : undefined));
    assert.equal(made.length, 2, "counted by a new consumer: the paused one was replaced");
  } finally {
    await aggregator.stop();
  }
});
