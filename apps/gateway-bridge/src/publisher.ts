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
// One refusal is not a failure: CONCURRENT_TRANSACTIONS, which the
// coordinator answers while it is still writing the markers of the previous
// transaction. Kafka expects the client to retry it (Java's producer does,
// for as long as a send may take), and after a broker outage the markers can
// take seconds, longer than kafkajs' own few retries. `send` retries such a
// batch in a new transaction, within the term: nothing of it was written
// (AddPartitionsToTxn comes before any produce), and the epoch is unchanged,
// so the fence still holds.
import type { Kafka, Producer } from "kafkajs";
import { log } from "./log.ts";
import { sleep } from "./pump.ts";

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
 * How long a batch is retried while the coordinator answers
 * CONCURRENT_TRANSACTIONS before the term ends: a previous transaction's
 * markers unwritten for longer than this is a broker in trouble.
 */
const CONCURRENT_TRANSACTIONS_WAIT_MS = 15_000;

/**
 * kafkajs' retries of a send: from 20 ms instead of the client's 200 ms, about
 * as patient in all (~1.3 s). A transaction that follows another at once is
 * often refused with CONCURRENT_TRANSACTIONS for a few milliseconds (the
 * previous one's markers); at 200 ms, 4-10 of 60 back-to-back one-record
 * transactions took ~200-260 ms on the test stack's broker, at 20 ms none took
 * over 38 ms (bench/catalog-transactions.ts). Revocations ride these transactions.
 */
const SEND_RETRY = { retries: 6, initialRetryTime: 20, maxRetryTime: 2_000 };

/** Whether kafkajs' error (or the error it wraps after its own retries) is CONCURRENT_TRANSACTIONS. */
export function isConcurrentTransactions(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { type?: unknown }).type === "CONCURRENT_TRANSACTIONS") return true;
  }
  return false;
}

/** The transactional.id every bridge publishing `topic` shares. */
export const transactionalIdFor = (topic: string) => `sluice-bridge.${topic}`;

export class Publisher {
  private producer: Producer | null = null;
  private broken: Error | null = null;

  constructor(
    private readonly kafka: Kafka,
    private readonly topic: string,
    /** Called once, with the first failure: the leadership term must end. */
    private readonly onFailure: (err: unknown) => void,
    /** The term's end: a batch waiting out CONCURRENT_TRANSACTIONS stops waiting. */
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
      await producer.connect();
      // The first transaction() sends InitProducerId (the fence); committing
      // an empty transaction sends nothing more.
      await (await producer.transaction()).commit();
    });
  }

  /** How many times a batch was sent again after CONCURRENT_TRANSACTIONS (read by the tests). */
  concurrentRetries = 0;

  async send(records: readonly OutgoingRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.guard(async () => {
      const began = Date.now();
      for (let attempt = 0; ; attempt++) {
        const { error, endedCleanly } = await this.sendInTransaction(records);
        if (!error) {
          if (attempt > 0)
            log(
              `a batch of ${records.length} waited ${Date.now() - began} ms for Kafka to finish the previous transaction (${attempt} retries)`,
            );
          return;
        }
        const retry =
          isConcurrentTransactions(error) &&
          endedCleanly &&
          !this.termEnded.aborted &&
          Date.now() - began < CONCURRENT_TRANSACTIONS_WAIT_MS;
        if (!retry) throw error;
        this.concurrentRetries++;
        // Java's producer waits 20 ms for this answer; doubling to 500 ms.
        await sleep(Math.min(500, 20 * 2 ** attempt), this.termEnded);
      }
    });
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
