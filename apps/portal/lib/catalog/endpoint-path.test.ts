import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";

import { buildPath, encodeSegment, keyProblem, paramProblem, parseEndpointPath, PathError, topicProblem } from "./endpoint-path";

interface Vector {
  path: string;
  topic?: string;
  key?: string;
  canonical?: string;
  error?: number;
}
const vectors: { cases: Vector[] } = JSON.parse(
  readFileSync(new URL("../../../../packages/protocol/vectors/paths.json", import.meta.url), "utf8"),
);

describe("parseEndpointPath follows the protocol's shared vectors", () => {
  for (const v of vectors.cases) {
    test(`${JSON.stringify(v.path)} → ${v.error ? `error ${v.error}` : v.canonical}`, () => {
      if (v.error) {
        assert.throws(() => parseEndpointPath(v.path), PathError);
        return;
      }
      assert.deepEqual(parseEndpointPath(v.path), { path: v.canonical, topic: v.topic, key: v.key, keyParam: null });
    });
  }
});

describe("parameterised paths", () => {
  test("/prices/{symbol} covers every key of the topic", () => {
    assert.deepEqual(parseEndpointPath("/prices/{symbol}"), { path: "/prices/{symbol}", topic: "prices", key: null, keyParam: "symbol" });
  });
  test("a bad parameter name is refused", () => {
    assert.throws(() => parseEndpointPath("/prices/{1x}"), /parameter name/);
    assert.throws(() => parseEndpointPath("/prices/{}"), /parameter name/);
  });
  test("braces elsewhere are refused; encoded braces are a literal key", () => {
    assert.throws(() => parseEndpointPath("/prices/{a}/b"), /\{ \}/);
    assert.throws(() => parseEndpointPath("/prices/a{b}"), /\{ \}/);
    assert.deepEqual(parseEndpointPath("/prices/%7Ba%7D"), { path: "/prices/%7Ba%7D", topic: "prices", key: "{a}", keyParam: null });
  });
});

describe("building canonical paths", () => {
  test("encodes every byte outside the unreserved set, upper-case", () => {
    assert.equal(encodeSegment("café *!'()"), "caf%C3%A9%20%2A%21%27%28%29");
    assert.equal(encodeSegment("A-z_0.9~"), "A-z_0.9~");
  });
  test("a key's slashes separate segments", () => {
    assert.equal(buildPath("vehicles", { key: "1/speed" }), "/vehicles/1/speed");
    assert.equal(buildPath("prices", { keyParam: "symbol" }), "/prices/{symbol}");
  });
  test("build and parse agree", () => {
    for (const key of ["a", "1/speed", "café", "x*y", "100%", "{a}", "a b/c d"]) {
      const path = buildPath("t", { key });
      assert.deepEqual(parseEndpointPath(path), { path, topic: "t", key, keyParam: null }, key);
    }
  });
});

describe("field rules", () => {
  test("topic names", () => {
    assert.equal(topicProblem("orders.v2_eu-1"), null);
    assert.equal(topicProblem("a".repeat(249)), null);
    for (const bad of ["", ".", "..", "a b", "a/b", "ü", "a".repeat(250)]) assert.notEqual(topicProblem(bad), null, bad);
  });
  test("keys", () => {
    assert.equal(keyProblem("1/speed"), null);
    assert.equal(keyProblem("é".repeat(512)), null);
    for (const bad of ["", "é".repeat(513), "a\u0000", "tab\there", "/a", "a/", "a//b", "\uD800"])
      assert.notEqual(keyProblem(bad), null, JSON.stringify(bad));
  });
  test("parameter names", () => {
    assert.equal(paramProblem("symbol_2"), null);
    for (const bad of ["", "2x", "a-b", "a".repeat(65)]) assert.notEqual(paramProblem(bad), null, bad);
  });
});
