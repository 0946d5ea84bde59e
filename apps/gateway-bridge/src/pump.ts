// The leader's single worker. Draining the outbox and reconciling the topic
// with the database run strictly one after the other here, never concurrently:
// the topic's order is the order of this loop, and the in-memory topic state
// the reconciliation compares against is only right if nothing else produces.
import type pg from "pg";
import { planRepublish } from "./catalog-diff.ts";
import { errorText, log } from "./log.ts";
import type { BridgeMetrics } from "./metrics.ts";
import { deletePublished, markPublished, readPending, type OutboxRow } from "./outbox.ts";
import type { OutgoingRecord, Publisher } from "./publisher.ts";
import { readSnapshot } from "./snapshot.ts";

/** Rows per Kafka request: small enough for one produce request, large enough to catch up fast. */
export const BATCH_SIZE = 500;

/**
 * A drain batch slower than this, from the wake-up that asked for it to its
 * rows marked, is logged with where its time went. A revocation rides such a
 * batch and is promised within a second; a batch takes a few ms to ~50 ms.
 */
const SLOW_DRAIN_MS = 400;

export interface PumpDeps {
  pool: pg.Pool;
  publisher: Publisher;
  metrics: BridgeMetrics;
  /** The topic's current state (key → value), read at start and kept up to date by every publish. */
  topicState: Map<string, string>;
  outboxRetentionDays: number;
  /** Test hook: sees each batch the drain read, before it is sent. */
  beforeSend?: (rows: readonly OutboxRow[]) => void;
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done);
  });
}

/** Each call answers the whole milliseconds since the previous one (or since `from`, a performance.now()). */
export function stopwatch(from = performance.now()): () => number {
  let mark = from;
  return () => {
    const now = performance.now();
    const ms = Math.round(now - mark);
    mark = now;
    return ms;
  };
}

/** `p`'s value, or undefined once `ms` passed first (`p` goes on; its failure is the caller's to catch). */
export const withTimeout = <T>(p: Promise<T>, ms: number): Promise<T | undefined> =>
  Promise.race([p, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms).unref())]);

/** Resolves when `signal` is aborted (at once if it already is). */
export function whenAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true })));
}

/** Exponential backoff with full jitter: 200 ms doubling up to `capMs` (10 s). */
export const backoffMs = (attempt: number, capMs = 10_000) => Math.random() * Math.min(capMs, 200 * 2 ** Math.min(attempt, 10));

export class Pump {
  private drainWanted = false;
  /** When the pending drain was first asked for (performance.now()), for the slow-drain log line. */
  private drainAskedAt = 0;
  private reconcileWanted = false;
  private cleanupWanted = false;
  private running: Promise<void> | null = null;
  private started = false;
  private failures = 0;

  constructor(
    private readonly deps: PumpDeps,
    /** Aborted on shutdown or when the publisher lock is lost: stop after the in-flight batch. */
    private readonly signal: AbortSignal,
  ) {}

  /** Asks for a drain (NOTIFY, sweep); requests coalesce into one pass. */
  wake(what: { reconcile?: boolean; cleanup?: boolean } = {}): void {
    if (!this.drainWanted) this.drainAskedAt = performance.now();
    this.drainWanted = true;
    if (what.reconcile) this.reconcileWanted = true;
    if (what.cleanup) this.cleanupWanted = true;
    this.kick();
  }

  private kick(): void {
    if (this.started && !this.running && !this.signal.aborted) {
      this.running = this.loop().finally(() => {
        this.running = null;
        // A wake() between the loop's last check and now found it "running".
        if (this.drainWanted || this.reconcileWanted || this.cleanupWanted) this.kick();
      });
    }
  }

  start(): void {
    this.started = true;
    this.wake();
  }

  /** Resolves when the in-flight step (if any) has finished. */
  async idle(): Promise<void> {
    await this.running;
  }

  private async loop(): Promise<void> {
    while (!this.signal.aborted && (this.drainWanted || this.reconcileWanted || this.cleanupWanted)) {
      try {
        if (this.reconcileWanted) {
          this.reconcileWanted = false;
          await this.reconcile();
        }
        if (this.drainWanted) {
          this.drainWanted = false;
          await this.drain();
        }
        if (this.cleanupWanted) {
          this.cleanupWanted = false;
          const deleted = await deletePublished(this.deps.pool, this.deps.outboxRetentionDays);
          if (deleted > 0) log(`deleted ${deleted} published outbox rows older than ${this.deps.outboxRetentionDays} days`);
        }
        this.failures = 0;
      } catch (err) {
        // Nothing unacknowledged was marked; try the same work again later.
        this.deps.metrics.publishErrors.inc();
        // A publish failure ends the leadership term (publisher.ts): the next
        // term retries, after taking the lock again; it was logged there.
        if (this.signal.aborted) return;
        const wait = backoffMs(this.failures++);
        if (this.failures <= 3 || this.failures % 20 === 0) {
          log(`publishing failed (attempt ${this.failures}), retrying in ${Math.round(wait)} ms: ${errorText(err)}`);
        }
        this.drainWanted = true;
        await sleep(wait, this.signal);
      }
    }
  }

  private acknowledged(records: readonly OutgoingRecord[]): void {
    for (const r of records) {
      if (r.value === null) this.deps.topicState.delete(r.key);
      else this.deps.topicState.set(r.key, r.value);
    }
    this.deps.metrics.recordPublished(records.length);
  }

  /** Publishes pending outbox rows in id order, marking each batch only after Kafka's ack. */
  private async drain(): Promise<void> {
    let askedAt = this.drainAskedAt;
    while (!this.signal.aborted) {
      const lap = stopwatch(askedAt);
      const rows = await readPending(this.deps.pool, BATCH_SIZE);
      if (rows.length === 0) return;
      const readMs = lap();
      this.deps.beforeSend?.(rows);
      await this.deps.publisher.send(rows);
      const sendMs = lap();
      this.acknowledged(rows);
      // If this update fails the rows are sent again on the retry: a duplicate
      // of the same values in the same order, which compaction absorbs.
      await markPublished(
        this.deps.pool,
        rows.map((r) => r.id),
      );
      const markMs = lap();
      const totalMs = readMs + sendMs + markMs;
      if (totalMs > SLOW_DRAIN_MS) {
        log(
          `published ${rows.length} outbox rows ${totalMs} ms after they were asked for: ` +
            `read ${readMs} ms (with the wait before it), sent ${sendMs} ms (${this.deps.publisher.lastSendRequests}), marked ${markMs} ms`,
        );
      }
      askedAt = performance.now();
    }
  }

  /**
   * Makes the topic equal to the database: publishes what differs from the
   * snapshot and tombstones what the database no longer has (including
   * revocations and retired keys that expired since). Then marks the pending
   * rows the snapshot covered. Runs at start and on every safety sweep.
   */
  async reconcile(): Promise<void> {
    const started = performance.now();
    const snapshot = await readSnapshot(this.deps.pool);
    const plan = planRepublish(snapshot.records, this.deps.topicState);
    const outgoing = plan.records.map((r) => ({ key: r.key, value: r.value === null ? null : JSON.stringify(r.value) }));
    for (let i = 0; i < outgoing.length; i += BATCH_SIZE) {
      const chunk = outgoing.slice(i, i + BATCH_SIZE);
      await this.deps.publisher.send(chunk);
      this.acknowledged(chunk);
    }
    for (let i = 0; i < snapshot.coveredOutboxIds.length; i += 10_000) {
      await markPublished(this.deps.pool, snapshot.coveredOutboxIds.slice(i, i + 10_000));
    }
    const seconds = (performance.now() - started) / 1000;
    this.deps.metrics.republishDuration.set(seconds);
    if (outgoing.length > 0 || plan.foreignKeys.length > 0) {
      const tombstones = outgoing.filter((r) => r.value === null).length;
      log(
        `catalog republished in ${seconds.toFixed(2)} s: ${outgoing.length - tombstones} records, ${tombstones} tombstones, ` +
          `${plan.unchanged} unchanged, ${snapshot.coveredOutboxIds.length} pending outbox rows covered` +
          (plan.foreignKeys.length ? `; left ${plan.foreignKeys.length} keys of unknown kinds alone` : ""),
      );
    }
  }
}
