import assert from "node:assert/strict";
import { test } from "node:test";

import { recordNameProblem, subjectFor, subjectsForTopic } from "./value-subject";

test("each strategy names its subject", () => {
  assert.equal(subjectFor("topic", "prices", null), "prices-value");
  assert.equal(subjectFor("topic", "prices", null, "key"), "prices-key");
  assert.equal(subjectFor("record", "prices", "com.acme.PriceKey", "key"), "com.acme.PriceKey");
  assert.equal(subjectFor("topic-record", "prices", "com.acme.PriceKey", "key"), "prices-com.acme.PriceKey");
  assert.equal(subjectFor("record", "prices", "com.acme.Price"), "com.acme.Price");
  assert.equal(subjectFor("topic-record", "prices", "com.acme.Price"), "prices-com.acme.Price");
  assert.throws(() => subjectFor("record", "prices", null), /needs a record name/);
});

test("a record name is a dotted full name", () => {
  for (const ok of ["Price", "com.acme.Price", "_x.y_2"]) assert.equal(recordNameProblem(ok), undefined, ok);
  for (const bad of ["", "com..Price", "1Price", "com.acme-eu.Price", "Price.", "a b"]) assert.ok(recordNameProblem(bad), bad);
});

test("a topic's subjects: its own by strategy, then every record subject; keys and other topics left out", () => {
  const subjects = [
    "prices-value",
    "prices-key",
    "prices-com.acme.Price",
    "prices-eu-value",
    "prices-eu-com.acme.Price",
    "orders-value",
    "com.acme.Order",
    "Quote",
  ];
  assert.deepEqual(subjectsForTopic("prices", subjects), [
    { subject: "prices-value", role: "value", strategy: "topic", recordName: null },
    { subject: "prices-com.acme.Price", role: "value", strategy: "topic-record", recordName: "com.acme.Price" },
    { subject: "com.acme.Order", role: "value", strategy: "record", recordName: "com.acme.Order" },
    { subject: "Quote", role: "value", strategy: "record", recordName: "Quote" },
  ]);
  // The key side: <topic>-key is the topic strategy's, <topic>-value is left out; the record strategies' subjects stay.
  assert.deepEqual(
    subjectsForTopic("prices", subjects, "key").map((s) => `${s.subject} ${s.role} ${s.strategy}`),
    ["prices-key key topic", "prices-com.acme.Price key topic-record", "com.acme.Order key record", "Quote key record"],
  );
  assert.deepEqual(
    subjectsForTopic("prices-eu", subjects).map((s) => s.subject),
    ["prices-eu-value", "prices-eu-com.acme.Price", "com.acme.Order", "Quote"],
  );
});
