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
import type { Kafka, Producer } from "kafkajs";

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
      });
      this.producer = producer;
      await producer.connect();
      // The first transaction() sends InitProducerId (the fence); committing
      // an empty transaction sends nothing more.
      await (await producer.transaction()).commit();
    });
  }

  async send(records: readonly OutgoingRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.guard(async () => {
      if (!this.producer) throw new Error("the publisher was not fenced in (call fence() first)");
      const txn = await this.producer.transaction();
      try {
        // One batch to one partition keeps the order of `records`.
        await txn.send({ topic: this.topic, acks: -1, messages: records.map((r) => ({ key: r.key, value: r.value, partition: 0 })) });
        await txn.commit();
      } catch (err) {
        // Best effort; a fenced or unreachable coordinator aborts it anyway
        // (the next leader's fence, or the transaction timeout).
        if (txn.isActive()) await txn.abort().catch(() => {});
        throw err;
      }
    });
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
