// Rows inserted while the bridge runs reach the topic in id order, exactly as
// written, and are marked published only afterwards. The safety sweep is set
// to an hour, so only LISTEN/NOTIFY can explain a prompt delivery.
import assert from "node:assert/strict";
import net from "node:net";
import { test } from "node:test";
import { type ISocketFactory, Kafka, logLevel } from "kafkajs";
import { ensureTopic } from "../src/kafka.ts";
import { Publisher } from "../src/publisher.ts";
import {
  brokers,
  deleteTopic,
  insertOutbox,
  kafka,
  pendingCount,
  scratchPerFile,
  scratchTopic,
  startBridgeProcess,
  topicRecords,
  waitFor,
} from "./helpers.ts";

const scratch = scratchPerFile();
const { topic } = scratch;

test("outbox rows inserted after start are published in id order, exactly, then marked published (woken by NOTIFY)", async () => {
  const bridge = await startBridgeProcess({ databaseUrl: scratch.db.url, topic, sweepSeconds: 3600 });
  await bridge.waitForLog(/publishing outbox changes/);

  const written = [
    { key: "app/a1", value: { v: 1, id: "a1", name: "First", tokens_not_before: null } },
    {
      key: "endpoint/e1",
      value: {
        v: 1,
        id: "e1",
        path: "/prices/{symbol}",
        topic: "prices",
        key: null,
        key_param: "symbol",
        operations: ["subscribe"],
        payload_format: "json",
        json_schema: { type: "object" },
        api: { id: "x", name: "n", version: "1" },
      },
    },
    { key: "app/a1", value: { v: 1, id: "a1", name: "Renamed", tokens_not_before: 1795000000 } },
    { key: "endpoint/e1", value: null },
  ];
  // Two transactions: two notifications, one drain each (or coalesced).
  const ids = [...(await insertOutbox(scratch.db.pool, written.slice(0, 2))), ...(await insertOutbox(scratch.db.pool, written.slice(2)))];

  const records = await waitFor("the four records on the topic", async () => {
    const r = await topicRecords(topic);
    return r.length >= 4 ? r : undefined;
  });
  assert.deepEqual(
    records.map((r) => [r.key, r.value === null ? null : JSON.parse(r.value)]),
    written.map((w) => [w.key, w.value]),
  );
  await waitFor("rows marked published", async () => (await pendingCount(scratch.db.pool)) === 0);
  const { rows } = await scratch.db.pool.query<{ id: string }>(
    "select id::text from catalog_outbox where published_at is not null order by id",
  );
  assert.deepEqual(
    rows.map((r) => Number(r.id)),
    ids,
  );

  const metrics = await bridge.metrics();
  assert.match(metrics, /^sluice_bridge_records_published_total 4$/m);
  assert.match(metrics, /^sluice_bridge_outbox_pending_rows 0$/m);
  assert.match(metrics, /^sluice_bridge_leader 1$/m);
  const health = await bridge.health();
  assert.equal(health.status, 200);
  assert.deepEqual(
    { ...health.body, lag_seconds: 0 },
    { status: "ok", service: "bridge", database: "ok", kafka: "ok", leader: "yes", pending: 0, lag_seconds: 0 },
  );

  assert.equal(await bridge.stop(), 0, bridge.output());
  assert.match(bridge.output(), /released the publisher lock/);
});

/**
 * Runs `body` with a publisher fenced on a scratch topic of its own (through
 * `client`), then closes it and deletes the topic. `failures` collects what
 * would end its term.
 */
async function withFencedPublisher(client: Kafka, body: (publisher: Publisher, topic: string, failures: unknown[]) => Promise<void>) {
  const own = scratchTopic();
  const admin = kafka.admin();
  await admin.connect();
  const failures: unknown[] = [];
  const publisher = new Publisher(client, own, (err) => failures.push(err));
  try {
    await ensureTopic(admin, own);
    await publisher.fence();
    await body(publisher, own, failures);
  } finally {
    await publisher.close();
    await admin.disconnect();
    await deleteTopic(own);
  }
}

test("a term's catalog transactions look the transaction coordinator up once, at the fence, not before each request", async () => {
  await withFencedPublisher(kafka, async (publisher, own, failures) => {
    const requests: string[] = [];
    for (let i = 0; i < 5; i++) {
      await publisher.send([{ key: `app/a${i}`, value: "{}" }]);
      requests.push(publisher.lastSendRequests);
    }
    // kafkajs alone sends FindCoordinator ("GroupCoordinator") before every
    // AddPartitionsToTxn and EndTxn.
    for (const r of requests) {
      assert.match(r, /AddPartitionsToTxn .*Produce .*EndTxn/);
      assert.doesNotMatch(r, /GroupCoordinator/);
    }
    assert.deepEqual(failures, []);
    assert.equal((await topicRecords(own)).length, 5);
  });
});

/** Kafka's API key of EndTxn (a request's header: size int32, then the key int16). */
const END_TXN = 26;

/**
 * A kafkajs socket factory (plaintext) whose connection is reset right after
 * the first EndTxn request went out, before its answer: the commit's outcome
 * is unknown to the client, as when a coordinator's broker dies.
 */
function dropAfterFirstEndTxn(): { socketFactory: ISocketFactory; endTxns: () => number } {
  let endTxns = 0;
  const socketFactory: ISocketFactory = ({ host, port, onConnect }) => {
    const socket = net.connect({ host, port }, onConnect);
    const write = socket.write.bind(socket) as (chunk: unknown, encoding?: BufferEncoding) => boolean;
    socket.write = ((chunk: unknown, encoding?: BufferEncoding) => {
      if (!Buffer.isBuffer(chunk) || chunk.length < 6 || chunk.readInt16BE(4) !== END_TXN) return write(chunk, encoding);
      endTxns++;
      if (endTxns > 1) return write(chunk, encoding);
      // Handed to the kernel, then reset: Kafka gets the request, the client never its answer.
      return (socket as net.Socket).write(chunk as Buffer, () =>
        socket.destroy(Object.assign(new Error("read ECONNRESET (closed by the test)"), { code: "ECONNRESET" })),
      );
    }) as typeof socket.write;
    return socket;
  };
  return { socketFactory, endTxns: () => endTxns };
}

test("a commit whose answer is lost (the connection reset after EndTxn went out) is sent again, and the term goes on", async () => {
  const dropping = dropAfterFirstEndTxn();
  const client = new Kafka({ clientId: "sluice-bridge-test", brokers, socketFactory: dropping.socketFactory, logLevel: logLevel.NOTHING });
  await withFencedPublisher(client, async (publisher, own, failures) => {
    await publisher.send([{ key: "app/a1", value: '{"n":1}' }]);
    await publisher.send([{ key: "app/a2", value: '{"n":2}' }]);
    assert.deepEqual(failures, [], "the publisher's term must not end");
    assert.ok(dropping.endTxns() >= 3, `EndTxn sent ${dropping.endTxns()} times`);
    // Each record once, committed (topicRecords reads read_committed).
    assert.deepEqual(
      (await topicRecords(own)).map((r) => r.key),
      ["app/a1", "app/a2"],
    );
  });
});
