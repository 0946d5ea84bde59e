import assert from "node:assert/strict";
import { test } from "node:test";

import { grantPatternSchema } from "./apps";
import { createTopicInput } from "./topics";

const pattern = (raw: string) => {
  const r = grantPatternSchema.safeParse(raw);
  return r.success ? r.data : `error: ${r.error.issues[0]!.message}`;
};

test("a grant pattern takes a parameterised path as the catalog shows it, as the topic's wildcard", () => {
  assert.equal(pattern("/prices/{symbol}"), "/prices/*");
  assert.equal(pattern(" /prices/{symbol} "), "/prices/*");
  assert.equal(pattern("/prices.eu/{a_b-1.c}"), "/prices.eu/*");
  assert.equal(pattern("/prices/BRK B"), "/prices/BRK%20B");
  for (const raw of ["/prices/a/{symbol}", "/prices/{symbol}/x", "/{topic}/x", "/prices/{}"])
    assert.match(pattern(raw), /^error: a parameter must be the whole key/, raw);
  assert.match(pattern("/bad topic/{id}"), /^error: .*not a valid Kafka topic name/);
});

test("a topic to create: Kafka's name rule, no __ prefix, 1–100 partitions (default 1), each naming its field", () => {
  assert.deepEqual(createTopicInput.parse({ name: " orders.eu_1 " }), { name: "orders.eu_1", partitions: 1 });
  const fields = (input: unknown) => {
    const r = createTopicInput.safeParse(input);
    return r.success ? [] : r.error.issues.map((i) => i.path.join("."));
  };
  for (const name of ["", ".", "..", "a b", "ü", "x".repeat(250), "__consumer_offsets"]) assert.deepEqual(fields({ name }), ["name"], name);
  assert.deepEqual(fields({ name: "x".repeat(249), partitions: 100 }), []);
  for (const partitions of [0, 101, 1.5, "2", null])
    assert.deepEqual(fields({ name: "ok", partitions }), ["partitions"], String(partitions));
});
