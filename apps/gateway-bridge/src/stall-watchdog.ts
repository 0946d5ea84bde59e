// After a full broker outage kafkajs' consumers can stay where they were, with
// no crash event and no sign of trouble (every chaos run: the catalog
// follower at offset 38 of 165 forty seconds after the brokers were back, the
// usage aggregator no longer counting), a known kafkajs failure mode. Nothing
// inside the consumer notices, so a watchdog looks from outside: every few
// seconds it asks the cluster how far the consumer should be, and a consumer
// that is behind and has not moved since the previous look is started again.
import type { Admin, Kafka } from "kafkajs";
import { sleep } from "./pump.ts";

/** What one look found; undefined when there is nothing to judge (not running, busy on purpose). */
export interface Progress {
  /** Whether the consumer is behind what the topic holds. */
  behind: boolean;
  /** Where it is, comparable between looks (e.g. "38", or offsets per partition). */
  position: string;
  /** Where it is against where it should be, for the log line: "offset 38 while the topic's end is 165". */
  detail: string;
}

export interface StallWatchdog {
  kafka: Kafka;
  everyMs: number;
  signal: AbortSignal;
  /** One look, with an admin client the watchdog keeps connected. */
  look(admin: Admin): Promise<Progress | undefined>;
  /** Called when two looks in a row found it behind at the same position, with the second look's detail. */
  stalled(detail: string): void;
}

/** Runs until `signal` is aborted. */
export async function watchForStalls(w: StallWatchdog): Promise<void> {
  const admin = w.kafka.admin();
  let connected = false;
  let behindAt: string | null = null;
  try {
    while (!w.signal.aborted) {
      await sleep(w.everyMs, w.signal);
      if (w.signal.aborted) break;
      try {
        if (!connected) {
          await admin.connect();
          connected = true;
        }
        const progress = await w.look(admin);
        if (!progress?.behind) behindAt = null;
        else if (behindAt === progress.position) {
          w.stalled(progress.detail);
          behindAt = null;
        } else behindAt = progress.position;
      } catch {
        // Kafka away: the consumer is retrying too; look again later.
        behindAt = null;
      }
    }
  } finally {
    await admin.disconnect().catch(() => {});
  }
}
