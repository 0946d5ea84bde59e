import assert from "node:assert/strict";
import { test } from "node:test";
import type { Kafka } from "kafkajs";
import { coordinatorBusy, Publisher } from "./publisher.ts";

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
  let onRequest: ((e: { payload: { apiName: string; duration: number } }) => void) | undefined;
  const answered = (apiName: string, duration: number) => onRequest?.({ payload: { apiName, duration } });
  const producer = {
    events: { REQUEST: "producer.network.request" },
    on(_event: string, listener: typeof onRequest) {
      onRequest = listener;
    },
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
          answered("AddPartitionsToTxn", 30);
          if (step !== "ok") throw step;
          answered("Produce", 12.4);
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

/** A publisher on a scripted producer, fenced in, recording the term-ending failures. */
async function fencedPublisher(script: { send: Step[]; commit?: Step[] }, termEnded?: AbortSignal) {
  const { kafka, log } = scriptedKafka(script);
  const failures: unknown[] = [];
  const publisher = new Publisher(kafka, "catalog", (err) => failures.push(err), termEnded);
  await publisher.fence();
  return { publisher, log, failures };
}

test("a batch refused with CONCURRENT_TRANSACTIONS is sent again in a new transaction, within the term", async () => {
  const concurrent = retriesExceeded(protocolError("CONCURRENT_TRANSACTIONS"));
  const { publisher, log, failures } = await fencedPublisher({ send: [concurrent, concurrent] });
  await publisher.send([{ key: "a", value: "1" }]);
  assert.deepEqual(failures, []);
  assert.equal(publisher.coordinatorRetries, 2);
  // The fence's empty transaction, two aborted attempts, then the batch once.
  assert.deepEqual(log, ["begin", "commit", "begin", "abort", "begin", "abort", "begin", "send a", "commit"]);
  await publisher.send([{ key: "b", value: "2" }]);
  assert.deepEqual(log.slice(-3), ["begin", "send b", "commit"]);
});

test("CONCURRENT_TRANSACTIONS on the commit ends the term: the batch may be in an open transaction", async () => {
  const { publisher, failures } = await fencedPublisher({ send: [], commit: ["ok", protocolError("CONCURRENT_TRANSACTIONS")] });
  await assert.rejects(publisher.send([{ key: "a", value: "1" }]), /CONCURRENT_TRANSACTIONS/);
  assert.equal(failures.length, 1);
  assert.equal(publisher.coordinatorRetries, 0);
  await assert.rejects(publisher.send([{ key: "b", value: "2" }]), /failed earlier in this term/);
});

test("any other refusal ends the term at once", async () => {
  const { publisher, log, failures } = await fencedPublisher({ send: [retriesExceeded(protocolError("INVALID_PRODUCER_EPOCH"))] });
  await assert.rejects(publisher.send([{ key: "a", value: "1" }]), /INVALID_PRODUCER_EPOCH/);
  assert.equal(failures.length, 1);
  assert.equal(log.filter((l) => l === "begin").length, 2);
});

test("a batch stops waiting out CONCURRENT_TRANSACTIONS when the term ends", async () => {
  const concurrent = protocolError("CONCURRENT_TRANSACTIONS");
  const term = new AbortController();
  const { publisher, failures } = await fencedPublisher({ send: [...Array.from({ length: 1000 }, () => concurrent)] }, term.signal);
  const sending = publisher.send([{ key: "a", value: "1" }]);
  setTimeout(() => term.abort(), 100);
  await assert.rejects(sending, /CONCURRENT_TRANSACTIONS/);
  assert.ok(publisher.coordinatorRetries >= 1 && publisher.coordinatorRetries < 20, `${publisher.coordinatorRetries} retries`);
  assert.equal(failures.length, 1);
});

test("a batch refused because the coordinator moved (NOT_COORDINATOR, as after a full outage) is sent again too", async () => {
  const moved = retriesExceeded(protocolError("NOT_COORDINATOR_FOR_GROUP"));
  const loading = protocolError("GROUP_LOAD_IN_PROGRESS");
  const { publisher, log, failures } = await fencedPublisher({ send: [moved, loading] });
  await publisher.send([{ key: "a", value: "1" }]);
  assert.deepEqual(failures, []);
  assert.equal(publisher.coordinatorRetries, 2);
  assert.deepEqual(log.slice(-3), ["begin", "send a", "commit"]);
  // What a slow batch's log line says (pump.ts): kafkajs' hidden requests, counted.
  assert.equal(publisher.lastSendRequests, "AddPartitionsToTxn 3× 90 ms (max 30), Produce 12 ms");
});

test("a commit that still fails ends the term (transaction-coordinator.ts retried it first)", async () => {
  const { publisher, failures } = await fencedPublisher({ send: [], commit: ["ok", protocolError("NOT_COORDINATOR_FOR_GROUP")] });
  await assert.rejects(publisher.send([{ key: "a", value: "1" }]), /NOT_COORDINATOR/);
  assert.equal(failures.length, 1);
  assert.equal(publisher.coordinatorRetries, 0);
});

test("coordinatorBusy looks through kafkajs' wrapping", () => {
  assert.equal(coordinatorBusy(protocolError("CONCURRENT_TRANSACTIONS")), "CONCURRENT_TRANSACTIONS");
  assert.equal(coordinatorBusy(retriesExceeded(protocolError("CONCURRENT_TRANSACTIONS"))), "CONCURRENT_TRANSACTIONS");
  assert.equal(coordinatorBusy(retriesExceeded(protocolError("NOT_COORDINATOR_FOR_GROUP"))), "NOT_COORDINATOR_FOR_GROUP");
  assert.equal(coordinatorBusy(protocolError("GROUP_COORDINATOR_NOT_AVAILABLE")), "GROUP_COORDINATOR_NOT_AVAILABLE");
  assert.equal(coordinatorBusy(retriesExceeded(protocolError("NOT_LEADER_OR_FOLLOWER"))), undefined);
  assert.equal(coordinatorBusy(retriesExceeded(protocolError("INVALID_PRODUCER_EPOCH"))), undefined);
  assert.equal(coordinatorBusy(new Error("plain")), undefined);
  assert.equal(coordinatorBusy(undefined), undefined);
});
