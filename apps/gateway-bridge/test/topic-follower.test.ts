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
