// What kafkajs lacks around the transaction coordinator, which the catalog
// publisher (publisher.ts) talks to for every batch. kafkajs 2.2.4 is its last
// release and has no option for any of this, so this module wraps four of its
// methods (Cluster.findGroupCoordinator, Broker.initProducerId,
// Broker.addPartitionsToTxn and Broker.endTxn) when it is imported (kafka.ts
// does).
//
// 1. kafkajs keeps no coordinator: it sends FindCoordinator before every
//    AddPartitionsToTxn and every EndTxn, so a catalog transaction of one
//    record is five sequential round trips where Java's producer makes three.
//    Under load each costs 30-200 ms, and revocations ride these transactions
//    (docs/reliability.md, "Where a revocation's time goes"). Here a client
//    (one Cluster: one producer, for one leadership term) keeps what its last
//    lookup found, while that broker is still known. A refusal that says the
//    coordinator moved (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE) or a
//    failure that is not Kafka's answer (the connection, a timeout), to any
//    of the three transaction requests, forgets it, so the next call (kafkajs'
//    own retry included) looks it up again, as Java's producer does. Other
//    answers (CONCURRENT_TRANSACTIONS, a fenced epoch) came from the
//    coordinator and keep it.
// 2. kafkajs sends EndTxn once: a commit refused because the coordinator moved
//    or is loading its state (both seen right after a broker outage) leaves
//    the transaction neither committed nor aborted, and the publisher's term
//    must end. Java's producer sends EndTxn again, to the coordinator it looks
//    up afresh when it moved, and so does this wrapper, for up to
//    END_TXN_RETRY_MS. A repeated EndTxn is safe: the coordinator answers a
//    transaction it already ended with the same result as done, and a fenced
//    producer's (a zombie's) is refused with its epoch, which is not retried.
// 3. A transaction that follows another at once is refused
//    (CONCURRENT_TRANSACTIONS) until the previous one's markers are written:
//    under load, two or three times for nearly every catalog batch. kafkajs
//    answers each refusal with a metadata refresh before it tries again, a
//    round trip that cannot help. Here AddPartitionsToTxn is sent again to the
//    same coordinator while it is busy (CONCURRENT_TRANSACTIONS,
//    COORDINATOR_LOAD_IN_PROGRESS), for up to ADD_PARTITIONS_RETRY_MS, before
//    kafkajs sees the refusal. A repeated AddPartitionsToTxn is safe: adding a
//    partition the transaction has is a no-op.
// Group coordinators (the consumers') are looked up as before.
import { createRequire } from "node:module";
import { setTimeout as delay } from "node:timers/promises";
import { log } from "./log.ts";

const require = createRequire(import.meta.url);

/** kafkajs' FindCoordinator key type for a transactional id (protocol/coordinatorTypes.js). */
const TRANSACTION_COORDINATOR = 1;

/** How long after its first failure a refused EndTxn is sent again before the error reaches the caller. */
const END_TXN_RETRY_MS = 10_000;

/**
 * How long an AddPartitionsToTxn the coordinator is busy with is sent again
 * before kafkajs gets the refusal (and retries the batch its own, slower way,
 * refreshing its metadata first).
 */
const ADD_PARTITIONS_RETRY_MS = 2_000;

/**
 * Kafka's answers that the coordinator is elsewhere (NOT_COORDINATOR,
 * COORDINATOR_NOT_AVAILABLE), by kafkajs' names: it uses the old group names.
 */
export const COORDINATOR_MOVED: ReadonlySet<string> = new Set(["NOT_COORDINATOR_FOR_GROUP", "GROUP_COORDINATOR_NOT_AVAILABLE"]);
/** The coordinator's answers that it will take the request a little later (COORDINATOR_LOAD_IN_PROGRESS's old name). */
export const COORDINATOR_BUSY: ReadonlySet<string> = new Set(["GROUP_LOAD_IN_PROGRESS", "CONCURRENT_TRANSACTIONS"]);

/** Whether `err` leaves the coordinator in doubt (see the top): it is looked up again. */
function coordinatorInDoubt(err: unknown): boolean {
  const { name, type } = (err ?? {}) as { name?: unknown; type?: unknown };
  return name !== "KafkaJSProtocolError" || (typeof type === "string" && COORDINATOR_MOVED.has(type));
}

interface FindCoordinatorArgs {
  groupId: string;
  coordinatorType?: number;
}
interface TxnArgs {
  transactionalId: string;
}
type TxnRequest = (this: unknown, args: TxnArgs) => Promise<unknown>;
interface BrokerLike {
  nodeId?: number;
}
interface ClusterLike {
  findGroupCoordinator(args: FindCoordinatorArgs): Promise<BrokerLike>;
  findBroker(args: { nodeId: number }): Promise<BrokerLike>;
}

/** The prototypes wrapped: kafkajs' own, or a test's stand-ins. */
export interface KafkajsPrototypes {
  cluster: ClusterLike;
  broker: { initProducerId: TxnRequest; addPartitionsToTxn: TxnRequest; endTxn: TxnRequest };
}

const WRAPPED = Symbol("sluice.transactionCoordinator");

/** Wraps the prototypes (once; again is a no-op). `endTxnRetryMs` is for the tests. */
export function keepTransactionCoordinators(protos: KafkajsPrototypes, endTxnRetryMs = END_TXN_RETRY_MS): void {
  const cluster = protos.cluster as ClusterLike & { [WRAPPED]?: true };
  if (cluster[WRAPPED]) return;
  cluster[WRAPPED] = true;

  // Per client: transactional id → the coordinator's node id, and the id's
  // failure count when the lookup that found it began.
  const kept = new WeakMap<object, Map<string, { nodeId: number; failures: number }>>();
  // Requests failed in doubt per transactional id, on any client (a broker's
  // request names the id, not its client): an entry kept before the latest
  // failure is stale, including one whose lookup was under way when it failed.
  const failures = new Map<string, number>();
  const failuresOf = (id: string) => failures.get(id) ?? 0;
  // The client each handed-out coordinator came from: a retried EndTxn looks
  // the coordinator up again through it.
  const clientOf = new WeakMap<object, ClusterLike>();

  const find = cluster.findGroupCoordinator;
  cluster.findGroupCoordinator = async function (this: ClusterLike, args: FindCoordinatorArgs) {
    if (args.coordinatorType !== TRANSACTION_COORDINATOR) return find.call(this, args);
    let mine = kept.get(this);
    if (!mine) {
      mine = new Map();
      kept.set(this, mine);
    }
    const entry = mine.get(args.groupId);
    let broker: BrokerLike | undefined;
    if (entry && entry.failures === failuresOf(args.groupId)) {
      // A broker no longer in the metadata is looked up afresh, as kafkajs would.
      broker = await this.findBroker({ nodeId: entry.nodeId }).catch(() => undefined);
    }
    if (!broker) {
      mine.delete(args.groupId);
      const failuresBefore = failuresOf(args.groupId);
      broker = await find.call(this, args);
      if (typeof broker.nodeId === "number") mine.set(args.groupId, { nodeId: broker.nodeId, failures: failuresBefore });
    }
    clientOf.set(broker, this);
    return broker;
  };

  const noteFailure = (err: unknown, id: string) => {
    if (coordinatorInDoubt(err)) failures.set(id, failuresOf(id) + 1);
  };

  // InitProducerId (the fence) is not retried here: kafkajs retries it itself.
  const initProducerId = protos.broker.initProducerId;
  protos.broker.initProducerId = async function (this: unknown, args) {
    try {
      return await initProducerId.call(this, args);
    } catch (err) {
      // An idempotent producer's InitProducerId has no transactional id.
      if (args.transactionalId) noteFailure(err, args.transactionalId);
      throw err;
    }
  };

  /**
   * `request`, sent again while the coordinator answers that it is busy, and
   * with `followMoves` to the coordinator looked up afresh when it is in
   * doubt, for up to `budgetMs`; then the last error goes to kafkajs.
   */
  const retried = (request: TxnRequest, followMoves: boolean, budgetMs: number, what: string): TxnRequest =>
    async function (this: unknown, args) {
      const began = Date.now();
      // The window runs from the first failure: one that took long (a request
      // timeout) still gets its retries.
      let failedAt: number | undefined;
      const refusals = new Set<string>();
      let coordinator = this as BrokerLike;
      for (let attempt = 0; ; attempt++) {
        try {
          const answer = await request.call(coordinator, args);
          if (attempt > 0 && followMoves)
            log(
              `${what} was sent ${attempt + 1} times over ${Date.now() - began} ms before its coordinator took it (after ${[...refusals].join(", ")})`,
            );
          return answer;
        } catch (err) {
          noteFailure(err, args.transactionalId);
          const type = (err as { type?: unknown }).type;
          refusals.add(typeof type === "string" ? type : ((err as { name?: string }).name ?? "an error"));
          const busy = typeof type === "string" && COORDINATOR_BUSY.has(type);
          const client = clientOf.get(coordinator);
          failedAt ??= Date.now();
          if (!(busy || (followMoves && coordinatorInDoubt(err))) || !client || Date.now() - failedAt >= budgetMs) throw err;
          // Busy: asked again every 20 ms, as Java's producer does. The
          // markers it waits for take 100-400 ms under load, and a doubling
          // wait overshot their end by up to half of itself. Moved: doubling
          // from 20 ms to 500 ms while a new coordinator takes over.
          await delay(busy ? 20 : Math.min(500, 20 * 2 ** attempt));
          if (!busy) {
            // A lookup that fails leaves the old one: its next refusal looks up again.
            coordinator = await client
              .findGroupCoordinator({ groupId: args.transactionalId, coordinatorType: TRANSACTION_COORDINATOR })
              .catch(() => coordinator);
          }
        }
      }
    };
  // A moved coordinator's refusal goes to kafkajs, which refreshes its
  // metadata and sends the batch again (and the publisher after it).
  protos.broker.addPartitionsToTxn = retried(protos.broker.addPartitionsToTxn, false, ADD_PARTITIONS_RETRY_MS, "AddPartitionsToTxn");
  protos.broker.endTxn = retried(protos.broker.endTxn, true, endTxnRetryMs, "a transaction's end (EndTxn)");
}

keepTransactionCoordinators({
  cluster: require("kafkajs/src/cluster/index.js").prototype,
  broker: require("kafkajs/src/broker/index.js").prototype,
});
