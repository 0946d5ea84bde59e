import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { consoleReducer, initialConsoleState, MAX_SHOWN, type ConsoleEvent, type ConsoleState, type Row } from "./console-state";

const run = (events: ConsoleEvent[], from: ConsoleState = initialConsoleState("{}")) => events.reduce(consoleReducer, from);
const message = (id: number): Row => ({
  kind: "message",
  id,
  arrivedAt: id,
  partition: 0,
  seq: id,
  key: "k",
  payload: `${id}`,
  payloadKind: "json",
});

describe("consoleReducer", () => {
  test("starts idle, with the example as the payload and a replay from offset 0", () => {
    const s = initialConsoleState('{"a":1}');
    assert.equal(s.phase, "idle");
    assert.equal(s.payload, '{"a":1}');
    assert.deepEqual(s.replay, { kind: "offset", offset: "0" });
    assert.equal(s.subState, "none");
  });

  test("a refused key stops Try it before connecting; the next try clears the error", () => {
    let s = run([{ type: "failed", error: "old" }, { type: "startRequested" }, { type: "keyRefused", message: "enter a value" }]);
    assert.equal(s.phase, "idle");
    assert.equal(s.error, null);
    assert.equal(s.keyError, "enter a value");
    s = run([{ type: "startRequested" }], s);
    assert.equal(s.keyError, null);
  });

  test("connecting, a refused token keeps the pill's detail; a failed connect clears it", () => {
    let s = run([{ type: "connecting", detail: "asking the portal for a token" }]);
    assert.deepEqual([s.phase, s.stateDetail], ["connecting", "asking the portal for a token"]);
    s = run([{ type: "connectFailed", error: "refused" }], s);
    assert.deepEqual([s.phase, s.stateDetail, s.error], ["idle", "asking the portal for a token", "refused"]);
    s = run(
      [
        { type: "connecting", detail: "x" },
        { type: "connectFailed", error: "no gateway", detail: "" },
      ],
      s,
    );
    assert.deepEqual([s.phase, s.stateDetail, s.error], ["idle", "", "no gateway"]);
  });

  test("the client's states move the phase; a drop and a reconnect set and clear the detail", () => {
    let s = run([{ type: "tokenGranted", canPublish: true }, { type: "connected" }]);
    assert.deepEqual([s.phase, s.grantedPublish], ["connected", true]);
    s = run(
      [
        { type: "clientState", state: "disconnected" },
        { type: "disconnected", detail: "connection lost (1006); retrying in 0.5 s" },
      ],
      s,
    );
    assert.deepEqual([s.phase, s.stateDetail], ["reconnecting", "connection lost (1006); retrying in 0.5 s"]);
    s = run([{ type: "clientState", state: "connected" }, { type: "reconnected" }], s);
    assert.deepEqual([s.phase, s.stateDetail], ["connected", ""]);
    assert.equal(run([{ type: "clientState", state: "closed" }], s), s, "closed comes with its own event");
  });

  test("closing with an error shows it; closing without keeps the last error", () => {
    const live = run([{ type: "connected" }, { type: "subscribing" }, { type: "live" }]);
    const revoked = run([{ type: "closed", error: "The token was revoked", detail: "revoked" }], live);
    assert.deepEqual(
      [revoked.phase, revoked.subState, revoked.stateDetail, revoked.error],
      ["closed", "none", "revoked", "The token was revoked"],
    );
    const quiet = run(
      [
        { type: "failed", error: "earlier" },
        { type: "closed", error: null, detail: "" },
      ],
      live,
    );
    assert.deepEqual([quiet.phase, quiet.error], ["closed", "earlier"]);
  });

  test("a subscription: subscribing, subscribed, live; pause survives the end of the subscription", () => {
    let s = run([
      { type: "connected" },
      { type: "subscribing" },
      { type: "subscribed", info: { path: "/t/k", epoch: "e", partition: 2 } },
      { type: "live" },
    ]);
    assert.deepEqual([s.subState, s.subInfo], ["live", { path: "/t/k", epoch: "e", partition: 2 }]);
    s = run([{ type: "paused" }, { type: "subscriptionEnded", error: null }], s);
    assert.equal(s.subState, "paused");
    s = run([{ type: "subscribing" }, { type: "live" }, { type: "subscriptionEnded", error: "gone" }], s);
    assert.deepEqual([s.subState, s.error], ["none", "gone"]);
    assert.equal(run([{ type: "subscribeFailed", error: "denied" }], s).error, "denied");
  });

  test("Disconnect drops the subscription at once and goes idle once the client closed", () => {
    let s = run([
      { type: "connected" },
      { type: "subscribed", info: { path: "/t/k", epoch: "e", partition: 0 } },
      { type: "live" },
      { type: "stopping" },
    ]);
    assert.deepEqual([s.phase, s.subState, s.subInfo], ["connected", "none", null]);
    s = run([{ type: "closed", error: null, detail: "" }, { type: "stopped" }], s);
    assert.deepEqual([s.phase, s.stateDetail], ["idle", ""]);
  });

  test("flushes put the newest first, keep MAX_SHOWN rows, and leave the state alone when nothing changed", () => {
    let s = run([{ type: "flushed", batch: [message(1), message(2)], total: 2, rate: 2 }]);
    assert.deepEqual(
      s.rows.map((r) => r.id),
      [2, 1],
    );
    assert.deepEqual([s.total, s.rate], [2, 2]);
    const same = run([{ type: "flushed", batch: [], total: 2, rate: 2 }], s);
    assert.equal(same, s);
    const slower = run([{ type: "flushed", batch: [], total: 99, rate: 0 }], s);
    assert.deepEqual([slower.rate, slower.total], [0, 2], "the count moves only with rows");
    s = run([{ type: "flushed", batch: Array.from({ length: MAX_SHOWN }, (_, i) => message(i + 3)), total: MAX_SHOWN + 2, rate: 9 }], s);
    assert.equal(s.rows.length, MAX_SHOWN);
    assert.equal(s.rows[0]!.id, MAX_SHOWN + 2);
    assert.equal(run([{ type: "cleared" }], s).rows.length, 0);
  });

  test("a batch handed to the reducer is not reordered in place", () => {
    const batch = [message(1), message(2)];
    run([{ type: "flushed", batch, total: 2, rate: 0 }]);
    assert.deepEqual(
      batch.map((r) => r.id),
      [1, 2],
    );
  });

  test("replay and publish errors are set and cleared by their own requests", () => {
    let s = run([
      { type: "replayChanged", replay: { kind: "time", time: "" } },
      { type: "replayRefused", error: { field: "replayTime", message: "pick a time" } },
    ]);
    assert.deepEqual(s.replay, { kind: "time", time: "" });
    assert.equal(s.replayError?.field, "replayTime");
    s = run([{ type: "replayRequested" }], s);
    assert.equal(s.replayError, null);

    s = run([{ type: "payloadChanged", payload: '{"speed": 1}' }, { type: "publishRequested" }, { type: "publishing" }], s);
    assert.deepEqual([s.payload, s.publishing], ['{"speed": 1}', true]);
    s = run([{ type: "published", result: "Published to /t/k: partition 0, offset 7." }], s);
    assert.deepEqual([s.publishing, s.publishResult, s.publishError], [false, "Published to /t/k: partition 0, offset 7.", null]);
    s = run([{ type: "publishRequested" }, { type: "publishing" }, { type: "publishFailed", message: "rejected" }], s);
    assert.deepEqual([s.publishing, s.publishResult, s.publishError], [false, null, { field: "payload", message: "rejected" }]);
    s = run([{ type: "publishRequested" }, { type: "publishRefused", error: { field: "key", message: "enter a key" } }], s);
    assert.deepEqual(s.publishError, { field: "key", message: "enter a key" });
  });
});
