import assert from "node:assert/strict";
import { test } from "node:test";

import {
  concretePath,
  formatPayload,
  keyOfPath,
  preparePublish,
  RateMeter,
  replayFrom,
  travelsAsJson,
  type ConsoleEndpoint,
} from "./console-model";

const exact: ConsoleEndpoint = { path: "/orders/eu", topic: "orders", key: "eu", keyParam: null, payloadFormat: "json", jsonSchema: null };
const param: ConsoleEndpoint = {
  path: "/prices/{symbol}",
  topic: "prices",
  key: null,
  keyParam: "symbol",
  payloadFormat: "json",
  jsonSchema: { type: "object", required: ["price"], properties: { price: { type: "number" } } },
};

test("an exact endpoint is its own path; a parameterised one needs a key, encoded per segment", () => {
  assert.deepEqual(concretePath(exact, "ignored"), { ok: true, value: "/orders/eu" });
  assert.deepEqual(concretePath(param, " BRK.B "), { ok: true, value: "/prices/BRK.B" });
  assert.deepEqual(concretePath(param, "café/1 2"), { ok: true, value: "/prices/caf%C3%A9/1%202" });
  assert.equal(concretePath(param, "").ok, false);
  const empty = concretePath(param, "a//b");
  assert.equal(empty.ok, false);
  assert.equal(!empty.ok && empty.field, "key");
  assert.equal(concretePath(param, "a\u0001").ok, false);
  assert.equal(concretePath(param, "x".repeat(1025)).ok, false);
});

test("keyOfPath decodes the segments after the topic", () => {
  assert.equal(keyOfPath("/prices/caf%C3%A9/1%202"), "café/1 2");
  assert.equal(keyOfPath("/orders/eu"), "eu");
});

test("payloads are shown as pretty JSON, text, or hex bytes", () => {
  assert.deepEqual(formatPayload({ a: 1 }), { text: '{\n  "a": 1\n}', kind: "json" });
  assert.deepEqual(formatPayload("hello"), { text: "hello", kind: "text" });
  assert.deepEqual(formatPayload(null), { text: "null", kind: "json" });
  assert.deepEqual(formatPayload(new Uint8Array([0, 255])), { text: "2 bytes: 00 ff", kind: "bytes" });
});

test("a message the gateway could not decode is shown as base64 with the reason", () => {
  const raw = new Uint8Array([0, 0, 0, 0, 9, 6, 65]);
  assert.deepEqual(formatPayload(raw, "schema id 9 is not in the registry"), {
    text: "AAAAAAkGQQ==",
    kind: "undecoded",
    error: "schema id 9 is not in the registry",
  });
  // The reason decides, not the shape of data: a decoded avro message is JSON like any other.
  assert.deepEqual(formatPayload({ id: "A-1" }), { text: '{\n  "id": "A-1"\n}', kind: "json" });
});

test("json and the registry formats travel as JSON; text and bytes do not", () => {
  for (const format of ["json", "avro", "protobuf", "json-schema"] as const) assert.equal(travelsAsJson({ payloadFormat: format }), true);
  for (const format of ["text", "bytes"] as const) assert.equal(travelsAsJson({ payloadFormat: format }), false);
  const avro: ConsoleEndpoint = { ...exact, payloadFormat: "avro" };
  assert.deepEqual(preparePublish(avro, '{"id": "A-1"}'), { ok: true, value: { id: "A-1" } });
  assert.equal(preparePublish(avro, "{").ok, false);
});

test("publish input is parsed and checked against the endpoint's schema, naming the field", () => {
  assert.deepEqual(preparePublish(param, '{"price": 1.5}'), { ok: true, value: { price: 1.5 } });
  const wrongType = preparePublish(param, '{"price": "high"}');
  assert.equal(wrongType.ok, false);
  assert.equal(!wrongType.ok && wrongType.field, "payload/price");
  assert.match(!wrongType.ok ? wrongType.message : "", /must be number/);
  const missing = preparePublish(param, "{}");
  assert.match(!missing.ok ? missing.message : "", /required property 'price'/);
  const notJson = preparePublish(param, "{price");
  assert.equal(!notJson.ok && notJson.field, "payload");
  assert.deepEqual(preparePublish(exact, "[1]"), { ok: true, value: [1] });
  assert.deepEqual(preparePublish({ ...exact, payloadFormat: "text" }, "plain"), { ok: true, value: "plain" });
  const bytes = preparePublish({ ...exact, payloadFormat: "bytes" }, "AP8=");
  assert.deepEqual(bytes.ok && [...(bytes.value as Uint8Array)], [0, 255]);
  assert.equal(preparePublish({ ...exact, payloadFormat: "bytes" }, "not base64!").ok, false);
});

test("a replay from an offset starts right after offset - 1 in the subscribed partition", () => {
  const current = { epoch: "E", partition: 2 };
  assert.deepEqual(replayFrom({ kind: "offset", offset: "42" }, current), { ok: true, value: { epoch: "E", partition: 2, seq: 41 } });
  assert.deepEqual(replayFrom({ kind: "offset", offset: "0" }, null), { ok: true, value: "earliest" });
  assert.equal(replayFrom({ kind: "offset", offset: "5" }, null).ok, false);
  assert.equal(replayFrom({ kind: "offset", offset: "-1" }, current).ok, false);
  assert.equal(replayFrom({ kind: "offset", offset: "1e3" }, current).ok, false);
  const now = Date.parse("2026-11-22T12:00:00Z");
  assert.deepEqual(replayFrom({ kind: "time", time: "2026-11-22T11:00:00Z" }, null, now), { ok: true, value: { time: now - 3_600_000 } });
  assert.equal(replayFrom({ kind: "time", time: "2026-11-22T13:00:00Z" }, null, now).ok, false);
  assert.equal(replayFrom({ kind: "time", time: "" }, null, now).ok, false);
});

test("the rate meter counts the last second only", () => {
  const meter = new RateMeter();
  for (let t = 0; t < 1000; t += 10) meter.add(10_000 + t);
  assert.equal(meter.rate(10_999), 100);
  assert.equal(meter.rate(11_400), 50); // buckets of 100 ms: 10.5 s..11.4 s
  assert.equal(meter.rate(13_000), 0);
  meter.add(13_050);
  assert.equal(meter.rate(13_060), 1);
});
