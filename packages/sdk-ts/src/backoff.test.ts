import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { Backoff } from "./backoff.js";

describe("Backoff", () => {
  it("grows exponentially up to the cap, with full jitter from the injected random", () => {
    const draws = [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5];
    const b = new Backoff({ initialDelayMs: 100, maxDelayMs: 1_000, factor: 2, random: () => draws.shift() as number });
    // Caps: 100, 200, 400, 800, 1000, 1000, 1000; half of each.
    assert.deepEqual(
      Array.from({ length: 7 }, () => b.next()),
      [50, 100, 200, 400, 500, 500, 500],
    );
  });

  it("spans the whole range [0, cap): a draw of 0 waits nothing, a draw near 1 almost the cap", () => {
    const b = new Backoff({ initialDelayMs: 1_000, random: () => 0 });
    assert.equal(b.next(), 0);
    const c = new Backoff({ initialDelayMs: 1_000, random: () => 0.999 });
    assert.equal(c.next(), 999);
  });

  it("starts over after reset", () => {
    const b = new Backoff({ initialDelayMs: 100, random: () => 0.99 });
    b.next();
    b.next();
    b.next();
    assert.equal(b.cap(), 800);
    b.reset();
    assert.equal(b.cap(), 100);
    assert.equal(b.attempts, 0);
  });

  it("refuses nonsense parameters", () => {
    assert.throws(() => new Backoff({ initialDelayMs: 10, maxDelayMs: 5 }), RangeError);
    assert.throws(() => new Backoff({ factor: 0.5 }), RangeError);
  });
});
