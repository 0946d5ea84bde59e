// Usage metering end to end (issue 17, "How it is checked"): two real gateway
// nodes meter what a real client (@sluice/sdk) of one app is sent and
// publishes, the bridge aggregates their usage records into PostgreSQL, and
// the totals there are exactly what the client counted itself, across a
// gateway node SIGKILLed mid-session (the client resumes on the other node)
// and a SIGKILLed aggregator.
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { after, test } from "node:test";
import { isDeepStrictEqual } from "node:util";
import { connect, type Message, type WebSocketConstructor } from "@sluice/sdk";
import { Partitioners } from "kafkajs";
import { type RawData, WebSocket } from "ws";
import { killAllGatewayNodes, scratchGatewayCatalog, startGatewayNode } from "./gateway-nodes.ts";
import { kafka, type ScratchDb, waitFor } from "./helpers.ts";
import { metricValue, startAggregatingBridge, type UsageRecordValue, usageFixtures } from "./usage-helpers.ts";

const fixture = usageFixtures();
after(killAllGatewayNodes);

/** What the usage tables hold per endpoint, and what the client counts for itself. */
interface Counts {
  delivered: number;
  delivered_bytes: number;
  published: number;
  published_bytes: number;
  errors: number;
}
const COUNTERS = ["delivered", "delivered_bytes", "published", "published_bytes", "errors"] as const;
type PerEndpoint = Record<string, Counts>;
const zero = (): Counts => ({ delivered: 0, delivered_bytes: 0, published: 0, published_bytes: 0, errors: 0 });

/** A consumer that keeps every record of the usage topic, to see what the nodes reported. */
async function tapUsageTopic(topic: string) {
  const records: UsageRecordValue[] = [];
  const next = new Map<number, bigint>();
  const groupId = `usage-e2e-tap-${randomUUID()}`;
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 200 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ partition, message }) => {
      records.push(JSON.parse(message.value!.toString("utf8")) as UsageRecordValue);
      next.set(partition, BigInt(message.offset) + 1n);
    },
  });
  const admin = kafka.admin();
  after(async () => {
    await consumer.disconnect();
    // It committed nothing, but the empty group would stay listed until the broker expires it.
    await admin.connect();
    await admin.deleteGroups([groupId]).catch(() => {});
    await admin.disconnect();
  });
  return {
    records,
    /** True once the tap has read everything the topic holds now. */
    async caughtUp(): Promise<boolean> {
      await admin.connect();
      try {
        const ends = await admin.fetchTopicOffsets(topic);
        return ends.every((e) => (next.get(e.partition) ?? 0n) >= BigInt(e.high));
      } finally {
        await admin.disconnect();
      }
    },
  };
}

async function countedIntervals(db: ScratchDb): Promise<number> {
  const { rows } = await db.pool.query<{ n: string }>("select count(*)::text as n from usage_intervals");
  return Number(rows[0]!.n);
}

/** The counters of app in the given nodes' records, per endpoint id. */
function reported(records: UsageRecordValue[], nodes: string[], app: string): PerEndpoint {
  const sums: PerEndpoint = {};
  for (const r of records) {
    if (!nodes.includes(r.node)) continue;
    for (const e of r.apps.find((a) => a.app === app)?.endpoints ?? []) {
      sums[e.endpoint] ??= zero();
      for (const c of COUNTERS) sums[e.endpoint]![c] += e[c];
    }
  }
  return sums;
}

/** The app's counters in a usage table, summed over its buckets (and nodes), per endpoint id. */
async function stored(db: ScratchDb, table: "usage_endpoint_minutes" | "usage_endpoint_hours", app: string, node?: string) {
  const { rows } = await db.pool.query<Counts & { endpoint_id: string }>(
    `select endpoint_id, ${COUNTERS.map((c) => `sum(${c})::int as ${c}`).join(", ")}
       from ${table} where app_id = $1 ${node ? "and node = $2" : ""} group by endpoint_id`,
    node ? [app, node] : [app],
  );
  return Object.fromEntries(rows.map(({ endpoint_id, ...counts }) => [endpoint_id, counts])) as PerEndpoint;
}

test("usage totals in PostgreSQL equal what the client counted, across a gateway node SIGKILL and an aggregator SIGKILL", async () => {
  const fx = await fixture();
  const run = randomBytes(4).toString("hex");
  const prices = `usage-e2e-prices-${run}`;
  const orders = `usage-e2e-orders-${run}`;
  const catalog = await scratchGatewayCatalog({
    topic: `usage-e2e-catalog-${run}`,
    dataTopics: [
      { topic: prices, partitions: 3 },
      { topic: orders, partitions: 1 },
    ],
  });
  const app = randomUUID();
  // Two endpoints: every key of prices (parameterised) and one exact key of orders.
  const pricesEp = randomUUID();
  const ordersEp = randomUUID();
  await catalog.putApp(app, "usage end to end");
  await catalog.putEndpoint({
    id: pricesEp,
    path: `/${prices}/{symbol}`,
    topic: prices,
    key: null,
    keyParam: "symbol",
    operations: ["subscribe", "publish"],
  });
  await catalog.putEndpoint({
    id: ordersEp,
    path: `/${orders}/eu`,
    topic: orders,
    key: "eu",
    keyParam: null,
    operations: ["subscribe", "publish"],
  });
  const endpointOf = (path: string) =>
    path.startsWith(`/${prices}/`) ? pricesEp : path === `/${orders}/eu` ? ordersEp : `unexpected ${path}`;

  // The bridge first: it creates the usage topic, which gateways never do. It
  // SIGKILLs itself once it has counted KILL_AFTER records, after committing the
  // last one in PostgreSQL and before committing its offset in Kafka (the test
  // hook of aggregator.ts): the worst moment to die, as its successor gets that
  // batch again and must count none of it twice.
  const KILL_AFTER = 4;
  const firstBridge = await startAggregatingBridge(fx, { SLUICE_BRIDGE_TEST_KILL_AFTER_USAGE_RECORDS: String(KILL_AFTER) });
  const tap = await tapUsageTopic(fx.usageTopic);
  const nodeOptions = { catalogTopic: catalog.topic, usageTopic: fx.usageTopic, usageInterval: "1s" };
  const [nodeA, nodeB] = await Promise.all([
    startGatewayNode({ ...nodeOptions, nodeId: `gw-a-${run}` }),
    startGatewayNode({ ...nodeOptions, nodeId: `gw-b-${run}` }),
  ]);

  // The client's own count, from the frames its socket received (the message
  // frames' JSON, byte for byte) and the publishes Kafka acknowledged. Its
  // sockets go, like a load balancer's, to whichever node `route` names.
  const counted: PerEndpoint = { [pricesEp]: zero(), [ordersEp]: zero() };
  let errorFrames = 0;
  let route = nodeA.wsUrl;
  class RoutedCountingSocket extends WebSocket {
    constructor(_url: string, protocols?: string | string[]) {
      super(route, protocols);
      this.on("message", (raw: RawData, isBinary: boolean) => {
        if (isBinary) return;
        const bytes = raw as Buffer;
        const frame = JSON.parse(bytes.toString("utf8")) as { type: string; endpoint?: string };
        if (frame.type === "error") errorFrames++;
        if (frame.type !== "message") return;
        const endpoint = endpointOf(frame.endpoint!);
        counted[endpoint] ??= zero();
        const c = counted[endpoint]!;
        c.delivered += 1;
        c.delivered_bytes += bytes.length;
      });
    }
  }
  const client = await connect(nodeA.wsUrl, {
    getToken: () => catalog.token(app, [`/${prices}/*`, `/${orders}/eu`]),
    WebSocket: RoutedCountingSocket as unknown as WebSocketConstructor,
    backoff: { initialDelayMs: 100, maxDelayMs: 500 },
  });
  after(() => client.close());
  const reconnects: boolean[] = [];
  client.on("connected", (c) => reconnects.push(c.reconnect));
  const got = new Map<string, number[]>();
  const onMessage = (m: Message<{ n: number }>) => {
    got.set(m.endpoint, [...(got.get(m.endpoint) ?? []), m.data.n]);
  };
  const aapl = `/${prices}/AAPL`;
  const eu = `/${orders}/eu`;
  await Promise.all([client.subscribe(aapl, onMessage).ready, client.subscribe(eu, onMessage).ready]);

  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false });
  await producer.connect();
  after(() => producer.disconnect());
  /** Produces n records to AAPL, MSFT (no subscriber: never counted) and eu in turn, numbered on from the last call's. */
  let produced = 0;
  const produce = async (n: number) => {
    const messages = Array.from({ length: n }, (_, i) => ({ key: ["AAPL", "MSFT", "eu"][(produced + i) % 3]!, n: produced + i }));
    produced += n;
    for (const [topic, keys] of [
      [prices, ["AAPL", "MSFT"]],
      [orders, ["eu"]],
    ] as const) {
      const batch = messages.filter((m) => (keys as readonly string[]).includes(m.key));
      // Multi-byte characters: the byte counts are of UTF-8, not of characters.
      const value = (m: (typeof batch)[number]) => JSON.stringify({ n: m.n, city: "Zürich", note: "café ☕" });
      await producer.send({ topic, acks: -1, messages: batch.map((m) => ({ key: m.key, value: value(m) })) });
    }
  };
  let publishedN = 1000;
  /** Publishes n messages to IBM (no subscriber) and k to eu (the client's own subscription: they come back). */
  const publish = async (n: number, k: number) => {
    for (const [path, count] of [
      [`/${prices}/IBM`, n],
      [eu, k],
    ] as const) {
      for (let i = 0; i < count; i++) {
        const data = { n: publishedN++, by: "usage-e2e", note: "naïve" };
        await client.publish(path, data);
        const c = counted[endpointOf(path)]!;
        c.published += 1;
        c.published_bytes += Buffer.byteLength(JSON.stringify(data));
      }
    }
  };
  const total = (field: keyof Counts) => counted[pricesEp]![field] + counted[ordersEp]![field];
  const handled = () => [...got.values()].reduce((n, l) => n + l.length, 0);

  // ── Phase 1, on node A: 30 records (10 AAPL, 10 MSFT, 10 eu) and 4 + 2 publishes.
  await produce(30);
  await publish(4, 2);
  await waitFor("the client to receive 10 AAPL, 10 eu and its 2 eu publishes", () => total("delivered") === 22 && handled() === 22);
  const phase1 = structuredClone(counted);
  // Node A reported all of it...
  await waitFor("node A's usage records to account for phase 1", () =>
    isDeepStrictEqual(reported(tap.records, [nodeA.nodeId], app), phase1),
  );
  assert.deepEqual(reported(tap.records, [nodeA.nodeId], app), phase1);
  // Each node writes a record a second: the bridge is dead within a few.
  await waitFor("the bridge to kill itself", () => firstBridge.child.signalCode === "SIGKILL");
  assert.match(firstBridge.output(), new RegExp(`killing the bridge after ${KILL_AFTER} counted usage records`));
  assert.equal(await countedIntervals(fx.db), KILL_AFTER);

  // ── Node A crashes. Why SIGKILL keeps the totals exact: a killed node loses
  // only what it counted and had not reported yet (docs/usage.md), and A has
  // reported everything it sent and published for the client (the records read
  // above); since then nothing was produced to the client's keys and it
  // published nothing, so A's unreported interval holds only gauges.
  route = nodeB.wsUrl;
  assert.equal(await nodeA.stop("SIGKILL"), null);
  // Produced while the client has no connection: it gets them on B by resuming from its last position.
  await produce(15);
  await waitFor("the client to reconnect (to node B)", () => reconnects.includes(true));
  // B's gauges show the client (its final record, made after its sessions closed, would not).
  await waitFor("node B to report the client's connection and both subscriptions", () =>
    tap.records.some((r) => {
      const a = r.node === nodeB.nodeId ? r.apps.find((x) => x.app === app) : undefined;
      return a?.connections === 1 && a.endpoints.filter((e) => e.subscriptions === 1).length === 2;
    }),
  );
  // The aggregator comes back while B is still serving.
  const bridge = await startAggregatingBridge(fx);

  // ── Phase 2, on node B.
  await produce(15);
  await publish(3, 1);
  await waitFor("the client to receive phase 2 (10 AAPL, 10 eu, 1 eu publish)", () => total("delivered") === 43 && handled() === 43);
  // A graceful stop at once: B's final record holds what it sent since its last report.
  assert.equal(await nodeB.stop("SIGTERM"), 0, nodeB.output());
  await client.close();

  // What the client saw: every record of its keys once, in order, and its own eu publishes.
  const numbers = (key: string, upTo: number) =>
    Array.from({ length: upTo }, (_, n) => n).filter((n) => ["AAPL", "MSFT", "eu"][n % 3] === key);
  assert.deepEqual(got.get(aapl), numbers("AAPL", 60));
  assert.deepEqual(
    got.get(eu)?.filter((n) => n < 1000),
    numbers("eu", 60),
  );
  assert.deepEqual(
    got.get(eu)?.filter((n) => n >= 1000),
    [1004, 1005, 1009],
  );
  assert.equal(errorFrames, 0);

  // Every record the nodes wrote is read, and counted by the bridge; B's last one is its final record.
  await waitFor("the tap to read every usage record", async () => (await tap.caughtUp()) || undefined);
  const ours = tap.records.filter((r) => r.node === nodeA.nodeId || r.node === nodeB.nodeId);
  assert.equal(ours.filter((r) => r.node === nodeB.nodeId).at(-1)?.final, true, "B's last record is its final one");
  const phase2 = structuredClone(counted);
  for (const [endpoint, c] of Object.entries(phase1)) for (const k of COUNTERS) phase2[endpoint]![k] -= c[k];
  assert.deepEqual(reported(ours, [nodeA.nodeId], app), phase1, "A reported phase 1, and lost nothing of it when killed");
  assert.deepEqual(reported(ours, [nodeB.nodeId], app), phase2, "B reported phase 2");
  const intervals = new Set(ours.map((r) => `${r.node}@${r.interval_start}`));
  await waitFor(`the bridge to count all ${intervals.size} intervals`, async () => {
    const { rows } = await fx.db.pool.query<{ k: string }>(
      `select node || '@' || (extract(epoch from interval_start) * 1000)::bigint as k from usage_intervals where node = any($1)`,
      [[nodeA.nodeId, nodeB.nodeId]],
    );
    return rows.length === intervals.size && rows.every((r) => intervals.has(r.k)) ? true : undefined;
  });

  // PostgreSQL holds exactly the client's counts, per endpoint, summed over minutes and over hours.
  assert.deepEqual(await stored(fx.db, "usage_endpoint_minutes", app), counted, "minute buckets");
  assert.deepEqual(await stored(fx.db, "usage_endpoint_minutes", app, nodeA.nodeId), phase1, "node A's minute buckets");
  assert.deepEqual(await stored(fx.db, "usage_endpoint_minutes", app, nodeB.nodeId), phase2, "node B's minute buckets");
  assert.deepEqual(await stored(fx.db, "usage_endpoint_hours", app), counted, "hour buckets");
  // Each node saw one connection of the app with one subscription per endpoint at its peak.
  const { rows: gauges } = await fx.db.pool.query(
    `select node, (select max(connections) from usage_app_minutes a where a.node = e.node and a.app_id = $1) as connections,
            endpoint_id, max(subscriptions) as subscriptions
       from usage_endpoint_minutes e where app_id = $1 group by node, endpoint_id order by node, endpoint_id`,
    [app],
  );
  assert.deepEqual(
    gauges,
    [nodeA.nodeId, nodeB.nodeId].flatMap((node) =>
      [pricesEp, ordersEp].sort().map((endpoint_id) => ({ node, connections: 1, endpoint_id, subscriptions: 1 })),
    ),
  );
  // The nodes page's rows: both nodes, A as it was last seen before its crash, B stopped gracefully.
  const { rows: nodes } = await fx.db.pool.query("select node, final from usage_nodes order by node");
  assert.deepEqual(nodes, [
    { node: nodeA.nodeId, final: false },
    { node: nodeB.nodeId, final: true },
  ]);
  const metrics = await bridge.metrics();
  // The restarted bridge counted the rest, and skipped at least the record whose offset its predecessor never committed.
  assert.equal(metricValue(metrics, 'sluice_bridge_usage_records_total{result="counted"}'), intervals.size - KILL_AFTER);
  const duplicates = metricValue(metrics, 'sluice_bridge_usage_records_total{result="duplicate"}');
  assert.ok(duplicates >= 1, `${duplicates} duplicates skipped`);
  const finalRecord = ours.filter((r) => r.node === nodeB.nodeId).at(-1)!;
  console.log(
    `${intervals.size} intervals (A ${ours.filter((r) => r.node === nodeA.nodeId).length}, B ${ours.filter((r) => r.node === nodeB.nodeId).length}); ` +
      `the restarted bridge skipped ${duplicates} it got again; ` +
      `B's final record: ${JSON.stringify(reported([finalRecord], [nodeB.nodeId], app))}`,
  );
  assert.equal(await bridge.stop(), 0, bridge.output());
});
