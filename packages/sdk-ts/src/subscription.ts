/**
 * A subscription to one endpoint. It outlives connections: the client re-sends it
 * after every reconnect from the last delivered position (before any message:
 * from the start position the gateway acknowledged), and it drops anything at
 * or before that position, so a handler sees every message once.
 */
import type { SluiceError } from "./errors.js";
import { Emitter } from "./events.js";
import { base64ToBytes, type From, type GapFrame, type MessageFrame, type Position } from "./frames.js";

/** One delivered message. */
export interface Message<T = unknown> {
  /** Canonical endpoint path. */
  endpoint: string;
  /** The JSON value (json endpoints), a string (text), or bytes (bytes endpoints, and records that do not fit the endpoint's format). */
  data: T;
  /** Present when `data` arrived base64-encoded and was decoded to a Uint8Array. */
  encoding?: "base64";
  /**
   * Why the record of a schema-registry endpoint (avro, protobuf, json-schema)
   * arrives undecoded: `data` is then its raw value (bytes). Resuming from
   * before it later may get it decoded (for instance once the registry answers).
   */
  error?: string;
  /** Kafka record timestamp, ms since the epoch. */
  ts: number;
  /** Where the message lives; pass it as `from` to resume after it. */
  position: Position;
}

/** A range of messages that will not arrive (PROTOCOL.md, "Subscribing"). */
export interface Gap {
  endpoint: string;
  epoch: string;
  partition: number;
  /** Messages with fromSeq <= seq < toSeq will not arrive. */
  fromSeq: number;
  toSeq: number;
  /** "retention", "epoch" (the topic was recreated), "slow_consumer", "quota" (the app's plan's delivery rate), or a reason a newer gateway adds. */
  reason: string;
}

export interface SubscribedInfo {
  endpoint: string;
  epoch: string;
  partition: number;
  /**
   * The offset just before the first message this subscription can deliver (-1:
   * before offset 0); undefined from a gateway that does not send it.
   */
  seq: number | undefined;
  /** True when this acknowledgement follows a reconnect (the subscription resumed). */
  resumed: boolean;
}

export interface SubscriptionEvents<T> {
  message: Message<T>;
  gap: Gap;
  /** Every acknowledgement from the gateway: the first one and one after each reconnect. */
  subscribed: SubscribedInfo;
  /** The subscription ended: unsubscribe(), client.close(), or an error (error set). */
  end: { error?: SluiceError };
}

export type MessageHandler<T> = (message: Message<T>) => void | Promise<void>;

/** What a subscription needs from its client. @internal */
export interface SubscriptionHost {
  unsubscribe(sub: Subscription<never>): Promise<void>;
  reportError(err: unknown): void;
}

type State = "pending" | "active" | "ended";

export class Subscription<T = unknown> extends Emitter<SubscriptionEvents<T>> implements AsyncIterable<Message<T>> {
  /** The canonical endpoint path. */
  readonly endpoint: string;
  /** Resolves with the first acknowledgement; rejects with the typed error if the gateway refuses the subscription. */
  readonly ready: Promise<SubscribedInfo>;

  private state: State = "pending";
  private readonly from: From;
  private readonly createdAt: number;
  // Where to resume: the last delivered message, or before any, the start
  // position of the latest acknowledgement.
  private resumeAt: Position | undefined;
  private epoch: string | undefined;
  // Highest seq delivered per partition within `epoch`: the dedupe window.
  private readonly lastSeq = new Map<number, number>();
  private acknowledged = 0;
  private duplicates = 0;
  private resolveReady!: (info: SubscribedInfo) => void;
  private rejectReady!: (err: SluiceError) => void;
  private buffering: boolean;
  private readonly buffer: Message<T>[] = [];
  private readonly waiters: { resolve: (r: IteratorResult<Message<T>>) => void; reject: (e: unknown) => void }[] = [];
  private endError: SluiceError | undefined;

  /** @internal */
  constructor(
    private readonly host: SubscriptionHost,
    endpoint: string,
    from: From,
    now: number,
    private readonly handler?: MessageHandler<T>,
  ) {
    super();
    this.endpoint = endpoint;
    this.from = from;
    this.createdAt = now;
    // Without a handler the caller will iterate: keep what arrives until it does.
    this.buffering = handler === undefined;
    this.ready = new Promise((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    // Awaiting `ready` is optional: don't let a refusal become an unhandled rejection.
    this.ready.catch(() => {});
    this.onListenerError = (err) => host.reportError(err);
  }

  /**
   * Where this subscription stands: the position of the last delivered message,
   * or, before any, the position the gateway said delivery starts after. Resume
   * from it with `{ from: sub.position }` (in another process, too) without loss.
   * Undefined before the first acknowledgement.
   */
  get position(): Position | undefined {
    return this.resumeAt;
  }

  /** True until the subscription ended. */
  get active(): boolean {
    return this.state !== "ended";
  }

  /** How many messages were dropped as already delivered (overlap after a resume). */
  get duplicatesDropped(): number {
    return this.duplicates;
  }

  /** unsubscribe ends the subscription; it resolves once the gateway confirmed (or the connection is gone). */
  unsubscribe(): Promise<void> {
    if (this.state === "ended") return Promise.resolve();
    return this.host.unsubscribe(this as unknown as Subscription<never>);
  }

  /**
   * Where the gateway should start on (re)subscribing: right after the last
   * delivered message or, before any, right after the start position the
   * gateway acknowledged (`subscribed.seq`), so nothing produced while
   * disconnected is lost even from "latest". A gateway that sends no seq leaves
   * the original `from`, which still names the same start — except "latest",
   * whose start moved on: then the time the caller subscribed.
   * @internal
   */
  resumeFrom(): From {
    if (this.resumeAt) return this.resumeAt;
    if (this.from === "latest" && this.wasSent) return { time: this.createdAt };
    return this.from;
  }

  /** @internal set once the subscribe frame went out at least once. */
  wasSent = false;
  /** @internal resumes refused with 4004 in a row. */
  notFoundRetries = 0;

  /** @internal how many times the gateway acknowledged this subscription. */
  get acknowledgements(): number {
    return this.acknowledged;
  }

  /** @internal */
  handleSubscribed(epoch: string, partition: number, seq?: number): void {
    if (this.state === "ended") return;
    this.state = "active";
    if (this.epoch !== undefined && this.epoch !== epoch) this.lastSeq.clear();
    this.epoch = epoch;
    // A resume is acknowledged with the position it asked for; only a start in
    // another epoch or partition (the topic was recreated) moves it.
    const at = this.resumeAt;
    if (seq !== undefined && (!at || at.epoch !== epoch || at.partition !== partition)) {
      this.resumeAt = { epoch, partition, seq };
    }
    const info: SubscribedInfo = { endpoint: this.endpoint, epoch, partition, seq, resumed: this.acknowledged > 0 };
    this.acknowledged++;
    this.resolveReady(info);
    this.emit("subscribed", info);
  }

  /** @internal the connection dropped: the next connection subscribes again. */
  handleDisconnected(): void {
    if (this.state === "active") this.state = "pending";
  }

  /** @internal returns false when the message was a duplicate. */
  handleMessage(frame: MessageFrame): boolean {
    if (this.state === "ended") return false;
    if (this.epoch !== frame.epoch) {
      // A new topic incarnation (the gateway sent an "epoch" gap): seqs restart.
      this.lastSeq.clear();
      this.epoch = frame.epoch;
    }
    const last = this.lastSeq.get(frame.partition);
    if (last !== undefined && frame.seq <= last) {
      this.duplicates++;
      return false;
    }
    this.lastSeq.set(frame.partition, frame.seq);
    const position = { epoch: frame.epoch, partition: frame.partition, seq: frame.seq };
    this.resumeAt = position;
    const message: Message<T> = {
      endpoint: this.endpoint,
      data: (frame.encoding === "base64" && typeof frame.data === "string" ? base64ToBytes(frame.data) : frame.data) as T,
      ts: frame.ts,
      position,
    };
    if (frame.encoding === "base64") message.encoding = "base64";
    if (frame.error !== undefined) message.error = frame.error;
    this.push(message);
    this.emit("message", message);
    if (this.handler) {
      try {
        const r = this.handler(message);
        if (r && typeof (r as Promise<void>).catch === "function") (r as Promise<void>).catch((e) => this.host.reportError(e));
      } catch (err) {
        this.host.reportError(err);
      }
    }
    return true;
  }

  /** @internal */
  handleGap(frame: GapFrame): void {
    if (this.state === "ended") return;
    this.emit("gap", {
      endpoint: this.endpoint,
      epoch: frame.epoch,
      partition: frame.partition,
      fromSeq: frame.from_seq,
      toSeq: frame.to_seq,
      reason: frame.reason,
    });
  }

  /** @internal ends the subscription for good; error set when it did not end by choice. */
  end(error?: SluiceError): void {
    if (this.state === "ended") return;
    this.state = "ended";
    this.endError = error;
    if (error) this.rejectReady(error);
    for (const w of this.waiters.splice(0)) {
      // Waiters exist only while the buffer is empty.
      if (error) {
        w.reject(error);
        this.endError = undefined;
      } else w.resolve({ value: undefined, done: true });
    }
    this.emit("end", error ? { error } : {});
  }

  private push(message: Message<T>): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter.resolve({ value: message, done: false });
    else if (this.buffering) this.buffer.push(message);
  }

  /** Iterating yields every message; breaking out of the loop unsubscribes. */
  [Symbol.asyncIterator](): AsyncIterator<Message<T>> {
    this.buffering = true;
    return {
      next: () => {
        const message = this.buffer.shift();
        if (message) return Promise.resolve({ value: message, done: false });
        if (this.state === "ended") {
          const error = this.endError;
          this.endError = undefined; // thrown once, then the iterator is done
          return error ? Promise.reject(error) : Promise.resolve({ value: undefined, done: true });
        }
        return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
      },
      return: async () => {
        await this.unsubscribe();
        return { value: undefined, done: true };
      },
    };
  }
}
