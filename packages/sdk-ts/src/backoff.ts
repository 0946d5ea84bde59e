/**
 * Reconnect delays: exponential backoff with full jitter (AWS Architecture Blog,
 * "Exponential Backoff And Jitter"): attempt n waits a uniformly random time in
 * [0, min(max, initial * factor^n)). Full jitter spreads the reconnects of many
 * clients that lost the same node, so they do not stampede the next one together.
 */
export interface BackoffOptions {
  /** The cap of the first attempt's delay, ms. Default 500. */
  initialDelayMs?: number;
  /** The largest cap, ms. Default 30,000. */
  maxDelayMs?: number;
  /** Growth per attempt. Default 2. */
  factor?: number;
  /** A source of uniform numbers in [0, 1); injectable for tests. Default Math.random. */
  random?: () => number;
}

export class Backoff {
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly factor: number;
  private readonly random: () => number;
  private attempt = 0;

  constructor(options: BackoffOptions = {}) {
    this.initialDelayMs = options.initialDelayMs ?? 500;
    this.maxDelayMs = options.maxDelayMs ?? 30_000;
    this.factor = options.factor ?? 2;
    this.random = options.random ?? Math.random;
    if (!(this.initialDelayMs >= 0) || !(this.maxDelayMs >= this.initialDelayMs) || !(this.factor >= 1)) {
      throw new RangeError("backoff: need 0 <= initialDelayMs <= maxDelayMs and factor >= 1");
    }
  }

  /** The upper bound of the next delay (before jitter). */
  cap(): number {
    return Math.min(this.maxDelayMs, this.initialDelayMs * this.factor ** this.attempt);
  }

  /** next returns the delay before the next attempt and counts the attempt. */
  next(): number {
    const delay = Math.floor(this.random() * this.cap());
    this.attempt++;
    return delay;
  }

  /** How many delays were handed out since the last reset. */
  get attempts(): number {
    return this.attempt;
  }

  /** reset starts over, after a connection succeeded. */
  reset(): void {
    this.attempt = 0;
  }
}
