import assert from "node:assert/strict";
import { test } from "node:test";
import { currentState, planRepublish } from "./catalog-diff.ts";

test("currentState keeps the last value per key and drops tombstoned keys", () => {
  const state = currentState([
    { key: "app/1", value: '{"v":1,"name":"a"}' },
    { key: "app/2", value: '{"v":1}' },
    { key: "app/1", value: '{"v":1,"name":"b"}' },
    { key: "app/2", value: null },
  ]);
  assert.deepEqual([...state], [["app/1", '{"v":1,"name":"b"}']]);
});

test("an empty topic gets the whole snapshot", () => {
  const snapshot = [
    { key: "endpoint/e1", value: { v: 1, id: "e1" } },
    { key: "app/a1", value: { v: 1, id: "a1" } },
  ];
  const plan = planRepublish(snapshot, new Map());
  assert.deepEqual(plan.records.map((r) => r.key).sort(), ["app/a1", "endpoint/e1"]);
  assert.equal(plan.unchanged, 0);
});

test("values the topic already holds are skipped, whatever the JSON key order", () => {
  const snapshot = [{ key: "app/a1", value: { v: 1, id: "a1", name: "x" } }];
  const plan = planRepublish(snapshot, new Map([["app/a1", '{"name":"x","id":"a1","v":1}']]));
  assert.deepEqual(plan.records, []);
  assert.equal(plan.unchanged, 1);
});

test("a changed or unreadable value is republished", () => {
  const snapshot = [
    { key: "app/a1", value: { v: 1, id: "a1", name: "new" } },
    { key: "app/a2", value: { v: 1, id: "a2" } },
  ];
  const plan = planRepublish(
    snapshot,
    new Map([
      ["app/a1", '{"v":1,"id":"a1","name":"old"}'],
      ["app/a2", "{broken"],
    ]),
  );
  assert.deepEqual(
    plan.records.map((r) => r.key),
    ["app/a1", "app/a2"],
  );
});

test("keys missing from the snapshot are tombstoned, keys of unknown kinds are left alone", () => {
  const topic = new Map([
    ["endpoint/gone", "{}"],
    ["revoked/expired", "{}"],
    ["key/dead", "{}"],
    ["app/kept", '{"v":1}'],
    ["future/thing", "{}"],
  ]);
  const plan = planRepublish([{ key: "app/kept", value: { v: 1 } }], topic);
  assert.deepEqual(
    plan.records.map((r) => [r.key, r.value]),
    [
      ["key/dead", null],
      ["endpoint/gone", null],
      ["revoked/expired", null],
    ],
  );
  assert.deepEqual(plan.foreignKeys, ["future/thing"]);
});

test("revocations and token-revoking removals come before grants", () => {
  const snapshot = [
    { key: "endpoint/e", value: { v: 1 } },
    { key: "app/a", value: { v: 1 } },
    { key: "key/k", value: { v: 1 } },
    { key: "revoked/j", value: { v: 1 } },
  ];
  const plan = planRepublish(
    snapshot,
    new Map([
      ["app/old", "{}"],
      ["endpoint/old", "{}"],
    ]),
  );
  assert.deepEqual(
    plan.records.map((r) => r.key),
    ["revoked/j", "app/old", "key/k", "app/a", "endpoint/e", "endpoint/old"],
  );
});
