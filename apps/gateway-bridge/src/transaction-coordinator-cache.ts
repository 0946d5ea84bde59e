// kafkajs keeps no transaction coordinator: it sends FindCoordinator before
// every AddPartitionsToTxn and every EndTxn, so a catalog transaction of one
// record is five sequential round trips where Java's producer makes three (it
// keeps the coordinator until a request to it fails). Under load each costs
// 30-200 ms, and revocations ride these transactions (docs/reliability.md,
// "Where a revocation's time goes"). kafkajs 2.2.4 is its last release and
// has no option for this, so this module wraps three of its methods:
//
// - Cluster.findGroupCoordinator, for the transaction coordinator only:
//   answered from what the last lookup of this client found, while that broker
//   is still known;
// - Broker.addPartitionsToTxn and Broker.endTxn: a refusal that says the
//   coordinator moved (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE) or any
//   failure that is not a Kafka answer (the connection) forgets the
//   transactional id's coordinator, so the next call (kafkajs' own retry
//   included) looks it up again, as Java's producer does. Other answers
//   (CONCURRENT_TRANSACTIONS, a fenced epoch) came from the coordinator and
//   keep it.
//
// Each kafkajs client (one producer per leadership term) has its own Cluster,
// so a coordinator is kept for one term at most. Group coordinators (the
// consumers') are looked up as before.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** kafkajs' FindCoordinator key type for a transactional id (protocol/coordinatorTypes.js). */
const TRANSACTION_COORDINATOR = 1;

interface FindCoordinatorArgs {
  groupId: string;
  coordinatorType?: number;
}
interface BrokerLike {
  nodeId?: number;
}
interface ClusterLike {
  findGroupCoordinator(args: FindCoordinatorArgs): Promise<BrokerLike>;
  findBroker(args: { nodeId: number }): Promise<BrokerLike>;
}
type TxnRequest = (this: unknown, args: { transactionalId: string }) => Promise<unknown>;

/** The prototypes wrapped: kafkajs' own, or a test's stand-ins. */
export interface KafkajsPrototypes {
  cluster: ClusterLike;
  broker: { addPartitionsToTxn: TxnRequest; endTxn: TxnRequest };
}

/** Kafka's answers that the coordinator is elsewhere, by kafkajs' (old, group) names. */
const COORDINATOR_MOVED = new Set(["NOT_COORDINATOR_FOR_GROUP", "GROUP_COORDINATOR_NOT_AVAILABLE"]);

/** Whether `err` leaves the coordinator in doubt (see the top). */
export function coordinatorInDoubt(err: unknown): boolean {
  const { name, type } = (err ?? {}) as { name?: unknown; type?: unknown };
  return name !== "KafkaJSProtocolError" || (typeof type === "string" && COORDINATOR_MOVED.has(type));
}

const WRAPPED = Symbol("sluice.transactionCoordinatorCache");

/**
 * Wraps the prototypes (once; again is a no-op). Called when this module
 * is imported, for kafkajs' own classes.
 */
export function keepTransactionCoordinators(protos: KafkajsPrototypes): void {
  const cluster = protos.cluster as ClusterLike & { [WRAPPED]?: true };
  if (cluster[WRAPPED]) return;
  cluster[WRAPPED] = true;

  // Per client (Cluster): transactional id → the coordinator's node id, and
  // the id's failure count when the lookup that found it began.
  const kept = new WeakMap<object, Map<string, { nodeId: number; failures: number }>>();
  // Failed requests per transactional id, on any client (a failed request
  // names the id, not its client): an entry kept before the latest failure is
  // stale, including one whose lookup was under way when it failed.
  const failures = new Map<string, number>();
  const failuresOf = (id: string) => failures.get(id) ?? 0;

  const find = cluster.findGroupCoordinator;
  cluster.findGroupCoordinator = async function (this: ClusterLike, args: FindCoordinatorArgs) {
    if (args.coordinatorType !== TRANSACTION_COORDINATOR) return find.call(this, args);
    const mine = kept.get(this) ?? new Map();
    kept.set(this, mine);
    const entry = mine.get(args.groupId);
    if (entry && entry.failures === failuresOf(args.groupId)) {
      // A broker no longer in the metadata is looked up afresh, as kafkajs would.
      const broker = await this.findBroker({ nodeId: entry.nodeId }).catch(() => undefined);
      if (broker) {
        return broker;
      }
    }
    mine.delete(args.groupId);
    const failuresBefore = failuresOf(args.groupId);
    const broker = await find.call(this, args);
    if (typeof broker.nodeId === "number") mine.set(args.groupId, { nodeId: broker.nodeId, failures: failuresBefore });
    return broker;
  };

  const forgetOnFailure = (request: TxnRequest): TxnRequest =>
    async function (this: unknown, args) {
      try {
        return await request.call(this, args);
      } catch (err) {
        if (coordinatorInDoubt(err)) failures.set(args.transactionalId, failuresOf(args.transactionalId) + 1);
        throw err;
      }
    };
  protos.broker.addPartitionsToTxn = forgetOnFailure(protos.broker.addPartitionsToTxn);
  protos.broker.endTxn = forgetOnFailure(protos.broker.endTxn);
}

keepTransactionCoordinators({
  cluster: require("kafkajs/src/cluster/index.js").prototype,
  broker: require("kafkajs/src/broker/index.js").prototype,
});
