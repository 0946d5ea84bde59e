// Produces catalog records to partition 0 of the catalog topic and resolves
// only once Kafka committed them (acks=all), one Kafka transaction per batch.
//
// Why transactions: they are the fence against a zombie leader. Every bridge
// uses the same transactional.id for a topic, and a leader initialises it
// (InitProducerId) once per leadership term, right after taking the lock and
// before reading anything it will publish. That bumps the producer epoch:
// Kafka aborts whatever transaction an earlier leader left open and refuses
// every later produce or commit with the old epoch. So a leader that was
// frozen (SIGSTOP, a VM pause, a long GC) while its lock expired cannot append
// the stale rows it had read before it froze once it wakes up: anything it
// committed came before the new leader's fence, hence before the new leader
// read the topic and reconciled it with the database. Readers of the topic
// (the gateway, the bridge itself) read read_committed, so aborted records
// are never catalog state.
//
// A publisher is used for one term only: after any failure (fenced, Kafka
// away, a timeout) it is broken and `onFailure` ends the term; the next term
// takes the lock again before it fences again. Re-initialising within a term
// could fence the rightful leader from a zombie and let the zombie publish
// rows it read before it froze.
//
// Some refusals are not failures: the transaction coordinator busy or moving.
// CONCURRENT_TRANSACTIONS is answered while it still writes the markers of the
// previous transaction; NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE and
// COORDINATOR_LOAD_IN_PROGRESS while its partition of __transaction_state
// moves to another broker or is being loaded (both seen right after a full
// broker outage). Kafka expects the client to retry them (Java's producer
// does, for as long as a send may take), and after an outage that can take
// seconds, longer than kafkajs' own few retries. `send` retries such a batch in
// a new transaction, within the term, when the refused one ended cleanly:
// nothing of it was written (AddPartitionsToTxn comes before any produce), and
// the epoch is unchanged, so the fence still holds. A refused commit (EndTxn)
// cannot end cleanly: kafkajs does not let the caller retry it. It is sent
// again below kafkajs (transaction-coordinator.ts) for up to 10 s; one that
// still fails ends the term.
import type { Kafka, Producer } from "kafkajs";
import { log } from "./log.ts";
import { sleep } from "./pump.ts";
import { COORDINATOR_BUSY, COORDINATOR_MOVED } from "./transaction-coordinator.ts";

export interface OutgoingRecord {
  key: string;
  /** JSON text, or null for a tombstone. */
  value: string | null;
}

/**
 * How long Kafka keeps a transaction of a crashed leader open when no other
 * bridge fences it (a standby fences at once). read_committed readers wait
 * behind an open transaction, so it is short; a batch commits in milliseconds.
 */
const TRANSACTION_TIMEOUT_MS = 20_000;

/**
 * How long a batch is retried while the coordinator is busy or moving (see
 * the top) before the term ends: a coordinator unavailable for longer than
 * this is a cluster in trouble, and the next term starts over.
 */
const COORDINATOR_WAIT_MS = 15_000;

/**
 * kafkajs' retries of a send: from 20 ms instead of the client's 200 ms, about
 * as patient in all (~1.3 s). A transaction that follows another at once is
 * often refused with CONCURRENT_TRANSACTIONS for a few milliseconds (the
 * previous one's markers); at 200 ms, 4-10 of 60 back-to-back one-record
 * transactions took ~200-260 ms on the test stack's broker, at 20 ms none took
 * over 38 ms (bench/catalog-transactions.ts). Revocations ride these transactions.
 * transaction-coordinator.ts now sends a refused AddPartitionsToTxn again
 * itself first, without kafkajs' metadata refresh in between.
 */
const SEND_RETRY = { retries: 6, initialRetryTime: 20, maxRetryTime: 2_000 };

/** The transaction coordinator's answers a batch is sent again after (see the top): busy or moved. */
const COORDINATOR_BUSY_OR_MOVED = new Set([...COORDINATOR_BUSY, ...COORDINATOR_MOVED]);

/**
 * The coordinator's busy answer in kafkajs' error (or in the error it wraps
 * after its own retries), e.g. "CONCURRENT_TRANSACTIONS", or undefined.
 */
export function coordinatorBusy(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const type = (e as { type?: unknown }).type;
    if (typeof type === "string" && COORDINATOR_BUSY_OR_MOVED.has(type)) return type;
  }
  return undefined;
}

/** The transactional.id every bridge publishing `topic` shares. */
export const transactionalIdFor = (topic: string) => `sluice-bridge.${topic}`;

/**
 * The Kafka requests of one send, for a log line when it was slow (pump.ts):
 * kafkajs hides its own retries and coordinator lookups, and after a broker
 * outage a one-record transaction took up to a second, before its produce.
 */
class RequestTrace {
  private readonly counts = new Map<string, { n: number; totalMs: number; maxMs: number }>();

  add(apiName: string, ms: number): void {
    const c = this.counts.get(apiName) ?? { n: 0, totalMs: 0, maxMs: 0 };
    c.n += 1;
    c.totalMs += ms;
    c.maxMs = Math.max(c.maxMs, ms);
    this.counts.set(apiName, c);
  }

  /** E.g. "FindCoordinator 2× 31 ms, AddPartitionsToTxn 4× 96 ms (max 40), Produce 212 ms, EndTxn 18 ms". */
  toString(): string {
    if (this.counts.size === 0) return "no request answered";
    return [...this.counts]
      .map(([api, c]) => `${api} ${c.n > 1 ? `${c.n}× ` : ""}${Math.round(c.totalMs)} ms${c.n > 1 ? ` (max ${Math.round(c.maxMs)})` : ""}`)
      .join(", ");
  }
}

export class Publisher {
  private producer: Producer | null = null;
  private broken: Error | null = null;
  /** Collects the requests answered while a send runs (one send at a time: the pump is serial). */
  private trace: RequestTrace | null = null;
  /** The requests of the last send, for the pump's log line on a slow one. */
  lastSendRequests = "";

  constructor(
    private readonly kafka: Kafka,
    private readonly topic: string,
    /** Called once, with the first failure: the leadership term must end. */
    private readonly onFailure: (err: unknown) => void,
    /** The term's end: a batch waiting for the coordinator stops waiting. */
    private readonly termEnded: AbortSignal = new AbortController().signal,
  ) {}

  /**
   * Connects and fences every earlier holder of the transactional id (their
   * open transaction is aborted, their later writes refused). Call once, while
   * holding the publisher lock, before reading the topic.
   */
  async fence(): Promise<void> {
    await this.guard(async () => {
      const producer = this.kafka.producer({
        transactionalId: transactionalIdFor(this.topic),
        transactionTimeout: TRANSACTION_TIMEOUT_MS,
        idempotent: true,
        maxInFlightRequests: 1,
        allowAutoTopicCreation: false,
        retry: SEND_RETRY,
      });
      this.producer = producer;
      producer.on(producer.events.REQUEST, (e) => this.trace?.add(e.payload.apiName, e.payload.duration));
      await producer.connect();
      // The first transaction() sends InitProducerId (the fence); committing
      // an empty transaction sends nothing more.
      await (await producer.transaction()).commit();
    });
  }

  /** How many times a batch was sent again because the coordinator was busy (read by the tests). */
  coordinatorRetries = 0;

  async send(records: readonly OutgoingRecord[]): Promise<void> {
    if (records.length === 0) return;
    const trace = new RequestTrace();
    this.trace = trace;
    try {
      await this.guard(() => this.sendBatch(records));
    } finally {
      this.trace = null;
      this.lastSendRequests = trace.toString();
    }
  }

  /** Sends `records` in a transaction, again while the coordinator is busy (see the top). */
  private async sendBatch(records: readonly OutgoingRecord[]): Promise<void> {
    const began = Date.now();
    const answers = new Set<string>();
    for (let attempt = 0; ; attempt++) {
      const { error, endedCleanly } = await this.sendInTransaction(records);
      if (!error) {
        if (attempt > 0)
          log(
            `a batch of ${records.length} waited ${Date.now() - began} ms for the transaction coordinator (${attempt} retries after ${[...answers].join(", ")})`,
          );
        return;
      }
      const busy = coordinatorBusy(error);
      const retry = busy !== undefined && endedCleanly && !this.termEnded.aborted && Date.now() - began < COORDINATOR_WAIT_MS;
      if (!retry) throw error;
      answers.add(busy);
      this.coordinatorRetries++;
      // Java's producer waits 20 ms for this answer; doubling to 500 ms.
      await sleep(Math.min(500, 20 * 2 ** attempt), this.termEnded);
    }
  }

  /**
   * One transaction with `records`. On failure, whether it ended cleanly:
   * aborted, so the producer can begin another (a failed commit leaves it
   * neither committed nor aborted: the term must end, and the next fence
   * aborts it).
   */
  private async sendInTransaction(records: readonly OutgoingRecord[]): Promise<{ error?: unknown; endedCleanly: boolean }> {
    if (!this.producer) throw new Error("the publisher was not fenced in (call fence() first)");
    const txn = await this.producer.transaction();
    try {
      // One batch to one partition keeps the order of `records`.
      await txn.send({ topic: this.topic, acks: -1, messages: records.map((r) => ({ key: r.key, value: r.value, partition: 0 })) });
      await txn.commit();
      return { endedCleanly: true };
    } catch (error) {
      // Best effort; a fenced or unreachable coordinator aborts it anyway
      // (the next leader's fence, or the transaction timeout).
      if (!txn.isActive()) return { error, endedCleanly: false };
      const aborted = await txn.abort().then(
        () => true,
        () => false,
      );
      return { error, endedCleanly: aborted };
    }
  }

  private async guard(work: () => Promise<void>): Promise<void> {
    if (this.broken) throw new Error(`the publisher failed earlier in this term: ${this.broken.message}`);
    try {
      await work();
    } catch (err) {
      this.broken = err instanceof Error ? err : new Error(String(err));
      await this.close();
      this.onFailure(err);
      throw err;
    }
  }

  async close(): Promise<void> {
    const producer = this.producer;
    this.producer = null;
    await producer?.disconnect().catch(() => {});
  }
}
