import assert from "node:assert/strict";
import { test } from "node:test";
import { type KafkajsPrototypes, keepTransactionCoordinators } from "./transaction-coordinator-cache.ts";

const TRANSACTION = 1;
/** kafkajs' shape of Kafka's answers. */
const protocolError = (type: string) => Object.assign(new Error(`protocol error ${type}`), { name: "KafkaJSProtocolError", type });
const notCoordinator = protocolError("NOT_COORDINATOR_FOR_GROUP");
const GROUP = 0;

/**
 * Stand-ins for kafkajs' Cluster and Broker prototypes (a unit-test double:
 * the real client against a real broker is in test/publish.test.ts): a
 * lookup answers the node `coordinator` names, and a broker's transaction
 * request fails while `refuse` is set.
 */
function fakeKafkajs() {
  const state = { coordinator: 1, known: new Set([1, 2, 3]), lookups: 0, refuse: undefined as Error | undefined };
  class Broker {
    constructor(readonly nodeId: number) {}
    async addPartitionsToTxn(_args: { transactionalId: string }) {
      if (state.refuse) throw state.refuse;
      return this.nodeId;
    }
    async endTxn(_args: { transactionalId: string }) {
      if (state.refuse) throw state.refuse;
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
  keepTransactionCoordinators({ cluster: Cluster.prototype, broker: Broker.prototype } as unknown as KafkajsPrototypes);
  return { state, Cluster };
}

test("the transaction coordinator is looked up once per client, not before every request", async () => {
  const { state, Cluster } = fakeKafkajs();
  const a = new Cluster();
  const b = new Cluster();
  for (let i = 0; i < 3; i++) {
    const broker = await a.findGroupCoordinator({ groupId: "txn-1", coordinatorType: TRANSACTION });
    assert.equal(broker.nodeId, 1);
  }
  assert.equal(state.lookups, 1);
  // Another client (the next term's producer) looks it up itself.
  await b.findGroupCoordinator({ groupId: "txn-1", coordinatorType: TRANSACTION });
  assert.equal(state.lookups, 2);
  // Consumer group coordinators are not kept.
  await a.findGroupCoordinator({ groupId: "group-1", coordinatorType: GROUP });
  await a.findGroupCoordinator({ groupId: "group-1", coordinatorType: GROUP });
  assert.equal(state.lookups, 4);
});

test("a failed transaction request forgets the coordinator, and the next lookup finds where it went", async () => {
  const { state, Cluster } = fakeKafkajs();
  const cluster = new Cluster();
  const coordinator = () => cluster.findGroupCoordinator({ groupId: "txn-1", coordinatorType: TRANSACTION });
  assert.equal(await (await coordinator()).addPartitionsToTxn({ transactionalId: "txn-1" }), 1);

  // The coordinator moves to node 2; node 1 refuses the next request.
  state.coordinator = 2;
  state.refuse = notCoordinator;
  await assert.rejects((await coordinator()).endTxn({ transactionalId: "txn-1" }), /NOT_COORDINATOR/);
  state.refuse = undefined;
  assert.equal((await coordinator()).nodeId, 2);
  assert.equal(state.lookups, 2);
  // Kept again from there.
  await coordinator();
  assert.equal(state.lookups, 2);
});

test("a failure while a lookup is under way leaves its answer unkept", async () => {
  const { state, Cluster } = fakeKafkajs();
  const cluster = new Cluster();
  const other = new Cluster();
  const lookup = cluster.findGroupCoordinator({ groupId: "txn-1", coordinatorType: TRANSACTION });
  state.refuse = notCoordinator;
  await assert.rejects(
    (await other.findGroupCoordinator({ groupId: "txn-1", coordinatorType: TRANSACTION })).addPartitionsToTxn({ transactionalId: "txn-1" }),
  );
  state.refuse = undefined;
  await lookup;
  const lookups = state.lookups;
  await cluster.findGroupCoordinator({ groupId: "txn-1", coordinatorType: TRANSACTION });
  assert.equal(state.lookups, lookups + 1);
});

test("a kept coordinator no longer in the metadata is looked up again", async () => {
  const { state, Cluster } = fakeKafkajs();
  const cluster = new Cluster();
  await cluster.findGroupCoordinator({ groupId: "txn-1", coordinatorType: TRANSACTION });
  state.known.delete(1);
  state.coordinator = 3;
  assert.equal((await cluster.findGroupCoordinator({ groupId: "txn-1", coordinatorType: TRANSACTION })).nodeId, 3);
  assert.equal(state.lookups, 2);
});

test("the coordinator's own refusals keep it; a lost connection does not", async () => {
  const { state, Cluster } = fakeKafkajs();
  const cluster = new Cluster();
  const coordinator = () => cluster.findGroupCoordinator({ groupId: "txn-1", coordinatorType: TRANSACTION });
  for (const answer of ["CONCURRENT_TRANSACTIONS", "INVALID_PRODUCER_EPOCH", "GROUP_LOAD_IN_PROGRESS"]) {
    state.refuse = protocolError(answer);
    await assert.rejects((await coordinator()).addPartitionsToTxn({ transactionalId: "txn-1" }));
  }
  assert.equal(state.lookups, 1);
  state.refuse = Object.assign(new Error("Connection error: ECONNREFUSED"), { name: "KafkaJSConnectionError" });
  await assert.rejects((await coordinator()).endTxn({ transactionalId: "txn-1" }));
  state.refuse = undefined;
  await coordinator();
  assert.equal(state.lookups, 2);
});
