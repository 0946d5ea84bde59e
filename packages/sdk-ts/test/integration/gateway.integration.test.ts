// @sluice/sdk against the real gateway binary and the shared Kafka (KAFKA_BROKERS).
// The gateway is SIGKILLed mid-stream and started again on the same port; every
// record must arrive exactly once and in order per partition.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { WebSocket } from "ws";

import { connect, RevokedError, type Message, type SluiceClient, type SluiceError, type WebSocketConstructor } from "../../src/index.js";
import { Harness } from "./gateway-harness.js";

const WS = WebSocket as unknown as WebSocketConstructor;
const KEYS = ["k0", "k1", "k2"];
const TOTAL = 300;

async function waitFor(cond: () => boolean, what: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("against the real gateway", { timeout: 240_000 }, () => {
  const h = new Harness();
  const clients: SluiceClient[] = [];

  before(async () => {
    await h.setUp();
    await h.startGateway();
  });

  after(async () => {
    for (const c of clients) await c.close();
    await h.tearDown();
  });

  it(`delivers ${TOTAL} records exactly once and in order while the gateway is killed and restarted mid-stream`, async () => {
    const client = await connect(h.wsUrl, {
      getToken: () => h.token(),
      WebSocket: WS,
      backoff: { initialDelayMs: 100, maxDelayMs: 1_000 },
    });
    clients.push(client);
    const drops: string[] = [];
    const reconnects: boolean[] = [];
    client.on("disconnected", (d) => drops.push(`${d.code} ${d.reason}`));
    client.on("connected", (c) => reconnects.push(c.reconnect));
    const gaps: unknown[] = [];

    const received = new Map<string, Message<{ key: string; n: number }>[]>(KEYS.map((k) => [k, []]));
    const subs = KEYS.map((k) => {
      // "earliest" on a fresh topic: nothing can race past the subscription.
      const sub = client.subscribe<{ key: string; n: number }>(`/${h.topic}/${k}`, (m) => void received.get(k)?.push(m), {
        from: "earliest",
      });
      sub.on("gap", (g) => gaps.push(g));
      return sub;
    });
    // A second client with a fixed token (no getToken) must come through the restart too.
    const fixed = await connect(h.wsUrl, { token: await h.token(), WebSocket: WS, backoff: { initialDelayMs: 100, maxDelayMs: 1_000 } });
    clients.push(fixed);
    const fixedGot: number[] = [];
    const fixedSub = fixed.subscribe<{ n: number }>(`/${h.topic}/k1`, (m) => void fixedGot.push(m.data.n), { from: "earliest" });
    await Promise.all([...subs.map((s) => s.ready), fixedSub.ready]);
    const count = () => [...received.values()].reduce((n, l) => n + l.length, 0);

    // Produce in small batches so the kill lands mid-stream.
    let sent = 0;
    const produce = async (upTo: number) => {
      while (sent < upTo) {
        const batch = [];
        for (let i = 0; i < 10 && sent < upTo; i++, sent++) {
          const key = KEYS[sent % KEYS.length] as string;
          batch.push({ key, value: JSON.stringify({ key, n: Math.floor(sent / KEYS.length) }) });
        }
        await h.producer.send({ topic: h.topic, acks: -1, messages: batch });
        await new Promise((r) => setTimeout(r, 20));
      }
    };

    // Phase 1 streams while the gateway is killed once a fifth has arrived; phase
    // 2 is written while no gateway runs; phase 3 after it is back.
    const phase1 = produce(TOTAL / 2);
    await waitFor(() => count() >= TOTAL / 5, "a fifth of the messages");
    await h.killGateway("SIGKILL");
    const deliveredBeforeKill = count();
    await phase1;
    await produce((3 * TOTAL) / 4);
    await h.startGateway();
    await produce(TOTAL);

    await waitFor(() => count() >= TOTAL && fixedGot.length >= TOTAL / KEYS.length, `${TOTAL} messages (have ${count()})`);
    // Anything extra would come now; give it the chance to show up.
    await new Promise((r) => setTimeout(r, 500));

    const perKey = TOTAL / KEYS.length;
    for (const k of KEYS) {
      const msgs = received.get(k) ?? [];
      assert.deepEqual(
        msgs.map((m) => m.data.n),
        Array.from({ length: perKey }, (_, i) => i),
        `key ${k}: every record exactly once, in order`,
      );
      const seqs = msgs.map((m) => m.position.seq);
      assert.ok(
        seqs.every((s, i) => i === 0 || s > (seqs[i - 1] as number)),
        `key ${k}: seq strictly increasing`,
      );
      assert.equal(new Set(msgs.map((m) => m.position.partition)).size, 1, `key ${k}: one partition`);
    }
    assert.equal(count(), TOTAL);
    assert.deepEqual(
      fixedGot,
      Array.from({ length: perKey }, (_, i) => i),
      "the fixed-token client: every record exactly once",
    );
    assert.equal(fixed.state, "connected");
    assert.ok(deliveredBeforeKill < TOTAL, "the kill happened mid-stream");
    assert.ok(drops.length >= 1, "the client saw the connection drop");
    assert.ok(reconnects.includes(true), "the client reconnected");
    assert.deepEqual(gaps, []);
    assert.equal(client.state, "connected");
    const dropped = subs.reduce((n, s) => n + s.duplicatesDropped, 0);
    console.log(`delivered before the kill: ${deliveredBeforeKill}; drops: ${drops.join(",")}; duplicates dropped by the SDK: ${dropped}`);
  });

  it("a latest subscription that has received nothing resumes from its acknowledged start: what was produced while the gateway was down arrives, exactly once", async () => {
    const client = await connect(h.wsUrl, {
      getToken: () => h.token(),
      WebSocket: WS,
      backoff: { initialDelayMs: 100, maxDelayMs: 1_000 },
    });
    clients.push(client);
    const endpoint = `/${h.topic}/quiet`;
    const got: Message<{ n: number }>[] = [];
    const sub = client.subscribe<{ n: number }>(endpoint, (m) => void got.push(m));
    const info = await sub.ready;
    assert.ok(Number.isInteger(info.seq), `subscribed.seq ${info.seq}`);
    assert.deepEqual(sub.position, { epoch: info.epoch, partition: info.partition, seq: info.seq });

    await h.killGateway("SIGKILL");
    await h.producer.send({ topic: h.topic, acks: -1, messages: [0, 1, 2].map((n) => ({ key: "quiet", value: JSON.stringify({ n }) })) });
    await h.startGateway();
    await waitFor(() => got.length >= 3, "the three records produced while the gateway was down");
    await new Promise((r) => setTimeout(r, 300)); // room for a duplicate to show up
    assert.deepEqual(
      got.map((m) => m.data.n),
      [0, 1, 2],
    );
    assert.ok(got.every((m) => m.position.partition === info.partition && m.position.seq > (info.seq as number)));
  });

  it("publishes through the SDK and the record is in Kafka at the acknowledged position", async () => {
    const client = await connect(h.wsUrl, { getToken: () => h.token(), WebSocket: WS });
    clients.push(client);
    const ack = await client.publish(`/${h.topic}/pub%2Dkey`, { hello: "world" });
    assert.equal(ack.endpoint, `/${h.topic}/pub-key`);
    assert.ok(ack.epoch.length > 0);

    const consumer = h.kafka.consumer({ groupId: `sdk-it-read-${h.run}` });
    await consumer.connect();
    try {
      await consumer.subscribe({ topic: h.topic, fromBeginning: true });
      const found = await new Promise<{ key: string; value: string; app: string }>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("published record not found in Kafka")), 60_000);
        void consumer.run({
          eachMessage: async ({ partition, message }) => {
            if (partition === ack.partition && Number(message.offset) === ack.seq) {
              clearTimeout(timer);
              resolve({ key: String(message.key), value: String(message.value), app: String(message.headers?.["sluice-app"] ?? "") });
            }
          },
        });
      });
      assert.deepEqual(found, { key: "pub-key", value: JSON.stringify({ hello: "world" }), app: h.app });
    } finally {
      await consumer.disconnect();
    }
  });

  it("given two nodes, fails over when its node is SIGKILLed mid-stream and resumes on the other: every record exactly once, in order", async () => {
    const nodes = [await h.startNode(), await h.startNode()];
    const urls = nodes.map((n) => n.wsUrl);
    const client = await connect(urls, {
      getToken: () => h.token(),
      WebSocket: WS,
      backoff: { initialDelayMs: 100, maxDelayMs: 1_000 },
    });
    clients.push(client);
    const first = client.url;
    const connectedTo: string[] = [];
    client.on("connected", (c) => connectedTo.push(c.url));
    const keys = ["f0", "f1"];
    const got = new Map<string, number[]>(keys.map((k) => [k, []]));
    const subs = keys.map((k) =>
      client.subscribe<{ n: number }>(`/${h.topic}/${k}`, (m) => void got.get(k)?.push(m.data.n), { from: "latest" }),
    );
    await Promise.all(subs.map((s) => s.ready));
    const count = () => [...got.values()].reduce((n, l) => n + l.length, 0);
    const perKey = 60;
    let sent = 0;
    const produce = async (upTo: number) => {
      for (; sent < upTo; sent++) {
        await h.producer.send({
          topic: h.topic,
          acks: -1,
          messages: keys.map((key) => ({ key, value: JSON.stringify({ n: sent }) })),
        });
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    const streaming = produce(perKey / 2);
    await waitFor(() => count() >= perKey / 4, "a quarter of the messages");
    await h.stopNode(nodes[urls.indexOf(first)]!, "SIGKILL");
    await streaming;
    await produce(perKey);
    await waitFor(() => count() >= perKey * keys.length, `${perKey * keys.length} messages (have ${count()})`);
    await new Promise((r) => setTimeout(r, 300)); // room for a duplicate to show up
    for (const k of keys) {
      assert.deepEqual(
        got.get(k),
        Array.from({ length: perKey }, (_, i) => i),
        `key ${k}: every record exactly once, in order`,
      );
    }
    assert.deepEqual(connectedTo, [urls.find((u) => u !== first)], "moved to the other node, and only there");
    assert.equal(client.state, "connected");
  });

  it("closes with RevokedError and does not reconnect when the token is revoked", async () => {
    const jti = `revoke-me-${h.run}`;
    const client = await connect(h.wsUrl, {
      getToken: () => h.token({ jti }),
      WebSocket: WS,
      backoff: { initialDelayMs: 50, maxDelayMs: 100 },
    });
    clients.push(client);
    const closed = new Promise<{ error?: SluiceError }>((resolve) => client.once("closed", resolve));
    let connects = 0;
    client.on("connected", () => connects++);
    await h.putCatalog(`revoked/${jti}`, { v: 1, jti, app: h.app, expires_at: Math.floor(Date.now() / 1000) + 3600 });
    const { error } = await closed;
    assert.ok(error instanceof RevokedError, String(error));
    assert.equal(error.code, 4009);
    assert.equal(client.state, "closed");
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(connects, 0);
  });
});
