import assert from "node:assert/strict";
import { test } from "node:test";
import { type KafkajsPrototypes, keepTransactionCoordinators } from "./transaction-coordinator.ts";

const TRANSACTION = 1;
const GROUP = 0;
/** kafkajs' shape of Kafka's answers. */
const protocolError = (type: string) => Object.assign(new Error(`protocol error ${type}`), { name: "KafkaJSProtocolError", type });
const notCoordinator = () => protocolError("NOT_COORDINATOR_FOR_GROUP");
const connectionLost = () => Object.assign(new Error("Connection error: ECONNREFUSED"), { name: "KafkaJSConnectionError" });

/**
 * Stand-ins for kafkajs' Cluster and Broker prototypes (a unit-test double:
 * the real client against a real broker is in test/publish.test.ts). A lookup
 * answers the node `coordinator` names; a broker's transaction request is
 * refused with the next of `refusals` while there are any, else answered
 * with its node id.
 */
function fakeKafkajs(endTxnRetryMs = 2_000) {
  const state = {
    coordinator: 1,
    known: new Set([1, 2, 3]),
    lookups: 0,
    refusals: [] as Error[],
    adds: [] as number[],
    endTxns: [] as number[],
  };
  class Broker {
    constructor(readonly nodeId: number) {}
    async initProducerId(_args: { transactionalId: string }) {
      const refusal = state.refusals.shift();
      if (refusal) throw refusal;
      return this.nodeId;
    }
    async addPartitionsToTxn(_args: { transactionalId: string }) {
      state.adds.push(this.nodeId);
      const refusal = state.refusals.shift();
      if (refusal) throw refusal;
      return this.nodeId;
    }
    async endTxn(_args: { transactionalId: string }) {
      state.endTxns.push(this.nodeId);
      const refusal = state.refusals.shift();
      if (refusal) throw refusal;
      return this.nodeId;
    }
  }
  class Cluster {
    async findGroupCoordinator(_args: { groupId: string; coordinatorType?: number }) {
      state.lookups++;
      return this.findBroker({ nodeId: state.coordinator });
    }
    async findBroker({ nodeId }: { nodeId: number }) {
      if (!state.known.has(nodeId)) throw Object.assign(new Error(`broker ${nodeId} not found`), { name: "KafkaJSBrokerNotFound" });
      return new Broker(nodeId);
    }
  }
  keepTransactionCoordinators({ cluster: Cluster.prototype, broker: Broker.prototype } as unknown as KafkajsPrototypes, endTxnRetryMs);
  const cluster = new Cluster();
  const coordinator = (client = cluster) => client.findGroupCoordinator({ groupId: "txn-1", coordinatorType: TRANSACTION });
  return { state, Cluster, coordinator };
}

const txn = { transactionalId: "txn-1" };

test("the transaction coordinator is looked up once per client, not before every request", async () => {
  const { state, Cluster, coordinator } = fakeKafkajs();
  for (let i = 0; i < 3; i++) assert.equal((await coordinator()).nodeId, 1);
  assert.equal(state.lookups, 1);
  // Another client (the next term's producer) looks it up itself.
  await coordinator(new Cluster());
  assert.equal(state.lookups, 2);
  // Consumer group coordinators are not kept.
  const cluster = new Cluster();
  await cluster.findGroupCoordinator({ groupId: "group-1", coordinatorType: GROUP });
  await cluster.findGroupCoordinator({ groupId: "group-1", coordinatorType: GROUP });
  assert.equal(state.lookups, 4);
});

test("a refused AddPartitionsToTxn forgets a coordinator that moved, and the next lookup finds where it went", async () => {
  const { state, coordinator } = fakeKafkajs();
  assert.equal(await (await coordinator()).addPartitionsToTxn(txn), 1);
  state.coordinator = 2;
  state.refusals = [notCoordinator()];
  await assert.rejects((await coordinator()).addPartitionsToTxn(txn), /NOT_COORDINATOR/);
  assert.equal((await coordinator()).nodeId, 2);
  assert.equal(state.lookups, 2);
  // Kept again from there.
  await coordinator();
  assert.equal(state.lookups, 2);
});

test("a refused InitProducerId (the fence) forgets a coordinator that moved, so kafkajs' retry finds where it went", async () => {
  const { state, coordinator } = fakeKafkajs();
  await coordinator();
  state.coordinator = 2;
  state.refusals = [notCoordinator()];
  await assert.rejects((await coordinator()).initProducerId(txn), /NOT_COORDINATOR/);
  assert.equal(await (await coordinator()).initProducerId(txn), 2);
});

test("the coordinator's own refusals keep it; a lost connection does not", async () => {
  const { state, coordinator } = fakeKafkajs();
  state.refusals = ["INVALID_PRODUCER_EPOCH", "TRANSACTIONAL_ID_AUTHORIZATION_FAILED"].map(protocolError);
  for (let i = 0; i < 2; i++) await assert.rejects((await coordinator()).addPartitionsToTxn(txn));
  assert.equal(state.lookups, 1);
  state.refusals = [connectionLost()];
  await assert.rejects((await coordinator()).addPartitionsToTxn(txn));
  await coordinator();
  assert.equal(state.lookups, 2);
});

test("a failure while a lookup is under way leaves its answer unkept", async () => {
  const { state, Cluster, coordinator } = fakeKafkajs();
  const lookup = coordinator();
  state.refusals = [notCoordinator()];
  await assert.rejects((await coordinator(new Cluster())).addPartitionsToTxn(txn));
  await lookup;
  const lookups = state.lookups;
  await coordinator();
  assert.equal(state.lookups, lookups + 1);
});

test("a kept coordinator no longer in the metadata is looked up again", async () => {
  const { state, coordinator } = fakeKafkajs();
  await coordinator();
  state.known.delete(1);
  state.coordinator = 3;
  assert.equal((await coordinator()).nodeId, 3);
  assert.equal(state.lookups, 2);
});

test("an EndTxn refused because the coordinator moved is sent again to where it went", async () => {
  const { state, coordinator } = fakeKafkajs();
  const first = await coordinator();
  state.coordinator = 2;
  state.refusals = [notCoordinator(), connectionLost()];
  // Node 1 refuses, node 2's connection drops once, then node 2 takes it.
  assert.equal(await first.endTxn(txn), 2);
  assert.deepEqual(state.endTxns, [1, 2, 2]);
  assert.equal(state.lookups, 3);
});

test("an EndTxn the coordinator is busy with is sent again to it; a fenced one is not", async () => {
  const { state, coordinator } = fakeKafkajs();
  state.refusals = [protocolError("CONCURRENT_TRANSACTIONS"), protocolError("GROUP_LOAD_IN_PROGRESS")];
  assert.equal(await (await coordinator()).endTxn(txn), 1);
  assert.deepEqual(state.endTxns, [1, 1, 1]);
  assert.equal(state.lookups, 1);

  state.endTxns = [];
  state.refusals = [protocolError("INVALID_PRODUCER_EPOCH")];
  await assert.rejects((await coordinator()).endTxn(txn), /INVALID_PRODUCER_EPOCH/);
  assert.deepEqual(state.endTxns, [1]);
});

test("an EndTxn refused for longer than the retry window fails with the last refusal", async () => {
  const { state, coordinator } = fakeKafkajs(300);
  state.refusals = Array.from({ length: 100 }, () => protocolError("GROUP_LOAD_IN_PROGRESS"));
  const began = Date.now();
  await assert.rejects((await coordinator()).endTxn(txn), /GROUP_LOAD_IN_PROGRESS/);
  assert.ok(Date.now() - began >= 300);
  assert.ok(state.endTxns.length >= 3 && state.endTxns.length < 100, `${state.endTxns.length} attempts`);
});

test("an AddPartitionsToTxn the coordinator is busy with is sent again to it, before kafkajs sees the refusal", async () => {
  const { state, coordinator } = fakeKafkajs();
  state.refusals = [
    protocolError("CONCURRENT_TRANSACTIONS"),
    protocolError("CONCURRENT_TRANSACTIONS"),
    protocolError("GROUP_LOAD_IN_PROGRESS"),
  ];
  assert.equal(await (await coordinator()).addPartitionsToTxn(txn), 1);
  assert.deepEqual(state.adds, [1, 1, 1, 1]);
  assert.equal(state.lookups, 1);
  // A coordinator that moved is kafkajs' to handle (it refreshes its metadata first).
  state.adds = [];
  state.coordinator = 2;
  state.refusals = [notCoordinator()];
  await assert.rejects((await coordinator()).addPartitionsToTxn(txn), /NOT_COORDINATOR/);
  assert.deepEqual(state.adds, [1]);
});
