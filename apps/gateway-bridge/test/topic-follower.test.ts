// The follower a takeover reads the catalog topic's state from, against the real
// broker: it must equal a read from the start (last value per key, tombstones,
// aborted transactions left out), and say "not there" rather than answer early.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { currentState } from "../src/catalog-diff.ts";
import { ensureTopic } from "../src/kafka.ts";
import { TopicFollower } from "../src/topic-follower.ts";
import { deleteTopic, kafka, scratchTopic, topicRecords, waitFor } from "./helpers.ts";

const topic = scratchTopic();
const admin = kafka.admin();
const producer = kafka.producer({ transactionalId: `sluice-follower-test-${topic}`, idempotent: true, maxInFlightRequests: 1 });

after(async () => {
  await producer.disconnect().catch(() => {});
  await admin.disconnect().catch(() => {});
  await deleteTopic(topic);
});

/** The end offset as the bridge lists it: read_committed, so the last stable offset. */
async function endOffset(): Promise<bigint> {
  const offsets = await admin.fetchTopicOffsets(topic);
  return BigInt(offsets.find((o) => o.partition === 0)!.high);
}

/**
 * One transaction, and the end offset once its marker is in: the broker writes
 * markers after it answers the commit, so the end listed at once can still
 * stop before the transaction's records (as after a fence it cannot).
 */
async function inTransaction(records: { key: string; value: string | null }[], outcome: "commit" | "abort"): Promise<bigint> {
  const before = await endOffset();
  const txn = await producer.transaction();
  await txn.send({ topic, acks: -1, messages: records.map((r) => ({ ...r, partition: 0 })) });
  await (outcome === "commit" ? txn.commit() : txn.abort());
  const settled = before + BigInt(records.length) + 1n;
  return waitFor("the transaction's marker", async () => ((await endOffset()) >= settled ? endOffset() : undefined));
}

test("the followed state equals a read from the start, through tombstones and aborted transactions", async () => {
  await admin.connect();
  await producer.connect();
  // Started before the topic exists, as a bridge on a fresh cluster is.
  const follower = new TopicFollower(kafka, topic);
  follower.start();
  try {
    assert.equal(await follower.stateAt(5n, 300), undefined, "no answer while it cannot follow");

    await ensureTopic(admin, topic);
    await inTransaction(
      [
        { key: "endpoint/a", value: '{"v":1}' },
        { key: "endpoint/b", value: '{"v":1}' },
        { key: "app/x", value: '{"v":1}' },
      ],
      "commit",
    );
    await inTransaction([{ key: "endpoint/a", value: '{"v":"aborted"}' }], "abort");
    const end = await inTransaction(
      [
        { key: "endpoint/b", value: null },
        { key: "endpoint/a", value: '{"v":2}' },
      ],
      "commit",
    );
    const followed = await follower.stateAt(end, 60_000);
    assert.ok(followed, "the follower reached the topic's end");
    const readBack = currentState(await topicRecords(topic));
    assert.deepEqual(followed, readBack);
    assert.deepEqual(
      followed,
      new Map([
        ["endpoint/a", '{"v":2}'],
        ["app/x", '{"v":1}'],
      ]),
    );

    // Later records are followed too; an answer is a copy, not the live map.
    const later = await follower.stateAt(await inTransaction([{ key: "app/y", value: '{"v":1}' }], "commit"), 60_000);
    assert.equal(later?.get("app/y"), '{"v":1}');
    assert.equal(followed.has("app/y"), false);

    // Started again (as a takeover does when the follower fell behind): it reads
    // the topic from the start again and answers the same.
    follower.restart("a test");
    await waitFor("the follower to stop", () => follower.describe() === "not running");
    assert.deepEqual(await follower.stateAt(await endOffset(), 60_000), later);

    // An end it cannot have reached yet (nothing there): no answer after the wait.
    assert.equal(await follower.stateAt((await endOffset()) + 10n, 500), undefined);
  } finally {
    await follower.stop();
    await follower.deleteGroup(admin);
  }
});

test("an empty or missing end needs no follower", async () => {
  const follower = new TopicFollower(kafka, topic);
  assert.deepEqual(await follower.stateAt(0n, 10), new Map());
});

test("a follower that stays behind the topic's end is started again by its watchdog", async () => {
  const follower = new TopicFollower(kafka, topic, 300);
  follower.start();
  try {
    await follower.stateAt(await endOffset(), 60_000);
    // What kafkajs did after a full broker outage, made on purpose: the consumer
    // stops fetching without a crash (paused), while the topic moves on.
    const consumer = (follower as unknown as { consumer: { pause(t: { topic: string }[]): void } }).consumer;
    consumer.pause([{ topic }]);
    const state = await follower.stateAt(await inTransaction([{ key: "app/z", value: '{"v":1}' }], "commit"), 60_000);
    assert.equal(state?.get("app/z"), '{"v":1}', "the restarted follower read the new record");
  } finally {
    await follower.stop();
    await follower.deleteGroup(admin);
  }
});

test("a restart does not wait for a stuck consumer to disconnect, and ignores what that consumer still delivers", async () => {
  // kafkajs' consumer stuck after a full broker outage took ~30 s to
  // disconnect. Here the first consumer never finishes disconnecting, and
  // delivers a record after it was replaced: that record must not overwrite
  // the newer value the next consumer read, nor move the position.
  type RealConsumer = ReturnType<typeof kafka.consumer>;
  type EachMessage = NonNullable<Parameters<RealConsumer["run"]>[0]>["eachMessage"];
  const made: RealConsumer[] = [];
  let realDisconnect: (() => Promise<void>) | undefined;
  let firstEachMessage: EachMessage;
  const stuckKafka = {
    consumer(config: Parameters<typeof kafka.consumer>[0]) {
      const consumer = kafka.consumer(config);
      if (made.length === 0) {
        realDisconnect = consumer.disconnect;
        consumer.disconnect = () => new Promise<void>(() => {});
        const realRun = consumer.run;
        consumer.run = (options) => {
          firstEachMessage = options?.eachMessage;
          return realRun(options);
        };
      }
      made.push(consumer);
      return consumer;
    },
    admin: () => kafka.admin(),
  } as unknown as typeof kafka;
  const follower = new TopicFollower(stuckKafka, topic, 300);
  follower.start();
  try {
    await follower.stateAt(await endOffset(), 60_000);
    made[0]!.pause([{ topic }]);
    await inTransaction([{ key: "app/late", value: '{"v":"old"}' }], "commit");
    const end = await inTransaction([{ key: "app/late", value: '{"v":"new"}' }], "commit");
    const state = await follower.stateAt(end, 60_000);
    assert.equal(state?.get("app/late"), '{"v":"new"}', "a new consumer followed although the first never disconnected");
    assert.equal(made.length, 2, "one restart");

    // The replaced consumer delivers the older record late.
    const where = follower.describe();
    await firstEachMessage!({
      topic,
      partition: 0,
      message: { key: Buffer.from("app/late"), value: Buffer.from('{"v":"old"}'), offset: "1" },
    } as unknown as Parameters<NonNullable<EachMessage>>[0]);
    assert.equal(follower.describe(), where, "the position did not move");
    const after = await follower.stateAt(end, 60_000);
    assert.equal(after?.get("app/late"), '{"v":"new"}', "the replaced consumer's late record was ignored");
    assert.deepEqual(after, currentState(await topicRecords(topic)));
  } finally {
    await follower.stop();
    await realDisconnect?.();
    await follower.deleteGroup(admin);
  }
});
