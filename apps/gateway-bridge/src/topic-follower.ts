// Every bridge, leader or standby, follows the catalog topic as it is written,
// so that a takeover knows the topic's state without reading it back from the
// start. Reading it back means a new consumer group (kafkajs has no manual
// assignment): a join, which took 1.3-1.5 s of a 3.4 s takeover in chaos runs
// here, plus group.initial.rebalance.delay.ms on brokers that keep Kafka's
// default (3 s), since every such group is new. The follower's group joins
// once, when the bridge starts, and then only after a crash or an outage.
//
// A takeover asks for the state as of the topic's end offset listed after its
// fence: nothing can be appended after that but the new leader's own records,
// so once the follower has processed up to that offset its state is exactly
// what a read from the start would give. A follower that is not running, or
// not there within a short wait, is not waited for: readTopic still works.
import { randomUUID } from "node:crypto";
import type { Admin, Consumer, Kafka } from "kafkajs";
import { applyRecord } from "./catalog-diff.ts";
import { catalogEndOffset } from "./kafka.ts";
import { errorText, log } from "./log.ts";
import { backoffMs, sleep, whenAborted, withTimeout } from "./pump.ts";
import { watchForStalls } from "./stall-watchdog.ts";

/** The watchdog's period (see watch()). */
const WATCHDOG_MS = 5_000;

/**
 * How long a restart waits for the replaced consumer to disconnect. A consumer
 * kafkajs left stuck after a full broker outage took ~30 s to do so in chaos
 * runs, and the next one started only then; it is left to finish in the
 * background instead (what it still reads is ignored: see run()).
 */
const DISCONNECT_WAIT_MS = 1_000;

/** At stop() the bridge is shutting down: worth waiting longer for a clean leave. */
const STOP_DISCONNECT_WAIT_MS = 10_000;

/** Disconnects `consumer`, waiting at most `ms` for it. */
const disconnectWithin = (consumer: Consumer, ms: number) =>
  withTimeout(
    consumer.disconnect().catch(() => {}),
    ms,
  );

export class TopicFollower {
  /** The last value per key of what was processed; tombstoned keys are absent. */
  private state = new Map<string, string>();
  /**
   * The offset of partition 0 processed last (each record, then each batch's
   * last offset, which covers markers and compacted gaps), -1n before any. It
   * moves back when kafkajs reads from an earlier offset again (a restart
   * after a crash): the records replayed from there lead back to the same
   * state, and a caller waits for an offset at least as far as anything
   * processed before.
   */
  private position = -1n;
  /** The consumer once it runs (null while starting or after it stopped). */
  private consumer: Consumer | null = null;
  /** The consumer being started or running: what stop() disconnects. */
  private current: Consumer | null = null;
  private readonly waiters = new Set<() => void>();
  private readonly stopping = new AbortController();
  private running: Promise<void> | null = null;
  /** Ends the running consumer's turn (restart()); set while one runs. */
  private endTurn: ((why: string) => void) | null = null;
  /**
   * The consumer groups this follower used, one per consumer it started: a new
   * one each time, so a start never waits for a stuck predecessor's session
   * to time out in its group (seen: 26 s). Under the prefix the bridge's ACLs
   * already grant (README: "Kafka ACLs each component needs").
   */
  private readonly groupIds: string[] = [];

  constructor(
    private readonly kafka: Kafka,
    private readonly topic: string,
    /** How often the watchdog compares the position with the topic's end. */
    private readonly watchdogMs = WATCHDOG_MS,
  ) {}

  /** Starts following in the background; retries until the topic exists and the consumer runs. */
  start(): void {
    this.running ??= this.run();
    this.watchdog ??= this.watch();
  }

  private watchdog: Promise<void> | null = null;

  /**
   * A running follower that is behind the topic's end and has not moved
   * since the previous look is started again (stall-watchdog.ts: kafkajs'
   * consumer can stay put after a full broker outage).
   */
  private watch(): Promise<void> {
    return watchForStalls({
      kafka: this.kafka,
      everyMs: this.watchdogMs,
      signal: this.stopping.signal,
      look: async (admin) => {
        if (!this.consumer) return undefined;
        const end = await catalogEndOffset(admin, this.topic);
        const position = this.position;
        return { behind: position < end - 1n, position: `${position}`, detail: `offset ${position} while the topic's end is ${end}` };
      },
      stalled: (detail) => this.restart(`it stayed at ${detail}`),
    });
  }

  /**
   * The topic's state once everything up to `end` (exclusive: the end offset
   * listed after the fence) was processed, or undefined if that did not
   * happen within `timeoutMs` (the caller reads the topic back instead).
   */
  async stateAt(end: bigint, timeoutMs: number): Promise<Map<string, string> | undefined> {
    const reached = () => this.consumer !== null && this.position >= end - 1n;
    if (end <= 0n) return new Map();
    if (!reached()) {
      await new Promise<void>((resolve) => {
        const check = () => {
          if (reached()) finish();
        };
        const finish = () => {
          clearTimeout(timer);
          this.waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(finish, timeoutMs);
        timer.unref(); // a caller that stopped waiting must not keep the process alive
        this.waiters.add(check);
      });
    }
    // Past the end is a topic deleted and created again under us: not to be trusted.
    if (!reached() || this.position > end - 1n) return undefined;
    return new Map(this.state);
  }

  /** Where the follower is, for a log line: the offset processed last, or that it is not running. */
  describe(): string {
    return this.consumer ? `at offset ${this.position}` : "not running";
  }

  /**
   * Starts the consumer again from the start of the topic. A takeover calls
   * this when the follower did not reach the topic's end in time although it
   * runs: a consumer that kafkajs left behind (seen after every full broker
   * outage in the chaos runs) is replaced rather than trusted for the next takeover.
   */
  restart(why: string): void {
    this.endTurn?.(why);
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    // Also ends a connect or subscribe still retrying (Kafka away).
    if (this.current) await disconnectWithin(this.current, STOP_DISCONNECT_WAIT_MS);
    await Promise.all([this.running, this.watchdog]);
  }

  private async run(): Promise<void> {
    for (let attempt = 0; !this.stopping.signal.aborted; attempt++) {
      const groupId = `sluice-bridge-read-follow-${randomUUID()}`;
      this.groupIds.push(groupId);
      const consumer = this.kafka.consumer({ groupId, allowAutoTopicCreation: false, maxWaitTimeInMs: 1000 });
      this.current = consumer;
      const crashed = new Promise<unknown>((resolve) => {
        consumer.on(consumer.events.CRASH, (e) => {
          // kafkajs restarts by itself after a retriable crash (and reads from
          // the start again: nothing is committed); otherwise this loop does.
          if (!e.payload.restart) resolve(e.payload.error);
        });
      });
      try {
        await consumer.connect();
        await consumer.subscribe({ topic: this.topic, fromBeginning: true });
        // A replaced consumer may still be disconnecting, and reading (see
        // DISCONNECT_WAIT_MS): only the current one may touch the state, or a
        // record it reads late would overwrite a newer value.
        const isCurrent = () => this.current === consumer;
        consumer.on(consumer.events.END_BATCH_PROCESS, (e) => {
          if (isCurrent() && e.payload.partition === 0 && e.payload.lastOffset != null) this.advanceTo(BigInt(e.payload.lastOffset));
        });
        await consumer.run({
          autoCommit: false,
          eachMessage: async ({ partition, message }) => {
            if (partition !== 0 || !isCurrent()) return;
            if (message.key !== null) {
              applyRecord(this.state, {
                key: message.key.toString("utf8"),
                value: message.value === null ? null : message.value.toString("utf8"),
              });
            }
            // Per record, not only per batch: kafkajs yields between records,
            // and a record read again (a restart) must pull the position back
            // at once, or a caller could copy a half-replayed state.
            this.advanceTo(BigInt(message.offset));
          },
        });
        this.consumer = consumer;
        attempt = 0;
        log(`following ${this.topic} for takeovers (consumer group ${groupId})`);
        const restarted = new Promise<string>((resolve) => (this.endTurn = resolve));
        const ended = await Promise.race([crashed, restarted, whenAborted(this.stopping.signal)]);
        if (ended !== undefined) log(`following ${this.topic} stopped, starting again: ${errorText(ended)}`);
      } catch (err) {
        // Usually the topic does not exist yet (a fresh cluster before the first leader creates it).
        if (attempt === 2) log(`cannot follow ${this.topic} yet (takeovers read it back instead): ${errorText(err)}`);
      } finally {
        this.consumer = null;
        this.current = null;
        this.endTurn = null;
        await disconnectWithin(consumer, DISCONNECT_WAIT_MS);
      }
      // A new consumer reads from the start: the state is rebuilt from nothing.
      this.state = new Map();
      this.position = -1n;
      if (!this.stopping.signal.aborted) await sleep(500 + backoffMs(attempt), this.stopping.signal);
    }
  }

  private advanceTo(offset: bigint): void {
    this.position = offset;
    for (const check of [...this.waiters]) check();
  }

  /** Deletes the follower's consumer groups (they have no offsets; this only tidies up). */
  async deleteGroup(admin: Admin): Promise<void> {
    await admin.deleteGroups(this.groupIds).catch(() => {});
  }
}
