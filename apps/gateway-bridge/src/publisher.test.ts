import assert from "node:assert/strict";
import { test } from "node:test";
import type { Kafka } from "kafkajs";
import { isConcurrentTransactions, Publisher } from "./publisher.ts";

/** kafkajs' shapes: a protocol error, and what its retrier throws once its retries are spent. */
const protocolError = (type: string) => Object.assign(new Error(`protocol error ${type}`), { type });
const retriesExceeded = (cause: Error) => Object.assign(new Error(cause.message), { name: "KafkaJSNumberOfRetriesExceeded", cause });

type Step = "ok" | Error;

/**
 * A transactional producer that answers each transaction's send and commit
 * from a script, and records what happened (a unit-test double: the real
 * broker's behaviour is covered by test/outage.test.ts and the chaos runs).
 */
function scriptedKafka(script: { send: Step[]; commit?: Step[] }) {
  const log: string[] = [];
  let sends = 0;
  let commits = 0;
  const producer = {
    async connect() {},
    async disconnect() {
      log.push("disconnect");
    },
    async transaction() {
      let active = true;
      log.push("begin");
      return {
        isActive: () => active,
        async send(batch: { messages: { key: string }[] }) {
          const step = script.send[sends++] ?? "ok";
          if (step !== "ok") throw step;
          log.push(`send ${batch.messages.map((m) => m.key).join(",")}`);
        },
        async commit() {
          const step = script.commit?.[commits++] ?? "ok";
          // A failed commit leaves kafkajs' transaction neither active nor ended.
          active = false;
          if (step !== "ok") throw step;
          log.push("commit");
        },
        async abort() {
          active = false;
          log.push("abort");
        },
      };
    },
  };
  return { kafka: { producer: () => producer } as unknown as Kafka, log };
}

test("a batch refused with CONCURRENT_TRANSACTIONS is sent again in a new transaction, within the term", async () => {
  const concurrent = retriesExceeded(protocolError("CONCURRENT_TRANSACTIONS"));
  const { kafka, log } = scriptedKafka({ send: [concurrent, concurrent] });
  const failures: unknown[] = [];
  const publisher = new Publisher(kafka, "catalog", (err) => failures.push(err));
  await publisher.fence();
  await publisher.send([{ key: "a", value: "1" }]);
  assert.deepEqual(failures, []);
  assert.equal(publisher.concurrentRetries, 2);
  // The fence's empty transaction, two aborted attempts, then the batch once.
  assert.deepEqual(log, ["begin", "commit", "begin", "abort", "begin", "abort", "begin", "send a", "commit"]);
  await publisher.send([{ key: "b", value: "2" }]);
  assert.deepEqual(log.slice(-3), ["begin", "send b", "commit"]);
});

test("CONCURRENT_TRANSACTIONS on the commit ends the term: the batch may be in an open transaction", async () => {
  const { kafka } = scriptedKafka({ send: [], commit: ["ok", protocolError("CONCURRENT_TRANSACTIONS")] });
  const failures: unknown[] = [];
  const publisher = new Publisher(kafka, "catalog", (err) => failures.push(err));
  await publisher.fence();
  await assert.rejects(publisher.send([{ key: "a", value: "1" }]), /CONCURRENT_TRANSACTIONS/);
  assert.equal(failures.length, 1);
  assert.equal(publisher.concurrentRetries, 0);
  await assert.rejects(publisher.send([{ key: "b", value: "2" }]), /failed earlier in this term/);
});

test("any other refusal ends the term at once", async () => {
  const { kafka, log } = scriptedKafka({ send: [retriesExceeded(protocolError("INVALID_PRODUCER_EPOCH"))] });
  const failures: unknown[] = [];
  const publisher = new Publisher(kafka, "catalog", (err) => failures.push(err));
  await publisher.fence();
  await assert.rejects(publisher.send([{ key: "a", value: "1" }]), /INVALID_PRODUCER_EPOCH/);
  assert.equal(failures.length, 1);
  assert.equal(log.filter((l) => l === "begin").length, 2);
});

test("a batch stops waiting out CONCURRENT_TRANSACTIONS when the term ends", async () => {
  const concurrent = protocolError("CONCURRENT_TRANSACTIONS");
  const { kafka } = scriptedKafka({ send: [...Array.from({ length: 1000 }, () => concurrent)] });
  const term = new AbortController();
  const failures: unknown[] = [];
  const publisher = new Publisher(kafka, "catalog", (err) => failures.push(err), term.signal);
  await publisher.fence();
  const sending = publisher.send([{ key: "a", value: "1" }]);
  setTimeout(() => term.abort(), 100);
  await assert.rejects(sending, /CONCURRENT_TRANSACTIONS/);
  assert.ok(publisher.concurrentRetries >= 1 && publisher.concurrentRetries < 20, `${publisher.concurrentRetries} retries`);
  assert.equal(failures.length, 1);
});

test("isConcurrentTransactions looks through kafkajs' wrapping", () => {
  assert.equal(isConcurrentTransactions(protocolError("CONCURRENT_TRANSACTIONS")), true);
  assert.equal(isConcurrentTransactions(retriesExceeded(protocolError("CONCURRENT_TRANSACTIONS"))), true);
  assert.equal(isConcurrentTransactions(retriesExceeded(protocolError("NOT_LEADER_OR_FOLLOWER"))), false);
  assert.equal(isConcurrentTransactions(new Error("plain")), false);
  assert.equal(isConcurrentTransactions(undefined), false);
});
