import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { AppError } from "../errors";
import { parseInput } from "./parse";
import { checkEndpoint, createEndpointInput, type EndpointDraft } from "./endpoints";
import { createApiInput } from "./apis";

const base: EndpointDraft = { operations: ["subscribe"], payloadFormat: "json", jsonSchema: null, description: "", examples: [] };
const fieldsOf = (draft: EndpointDraft) => {
  const r = checkEndpoint(draft);
  return r.ok ? [] : r.errors.map((e) => e.field);
};
const fieldsOfParse = (schema: Parameters<typeof parseInput>[0], input: unknown) => {
  try {
    parseInput(schema, input);
    return [];
  } catch (err) {
    assert.ok(err instanceof AppError);
    return err.fieldErrors.map((e) => e.field);
  }
};

describe("checkEndpoint: where the endpoint points", () => {
  test("topic + key gives the canonical path", () => {
    const r = checkEndpoint({ ...base, topic: "news", key: "café/today" });
    assert.ok(r.ok);
    assert.deepEqual(
      [r.fields.path, r.fields.topic, r.fields.key, r.fields.keyParam],
      ["/news/caf%C3%A9/today", "news", "café/today", null],
    );
  });
  test("topic + keyParam gives /topic/{param}", () => {
    const r = checkEndpoint({ ...base, topic: "prices", keyParam: "symbol" });
    assert.ok(r.ok);
    assert.equal(r.fields.path, "/prices/{symbol}");
  });
  test("a path is parsed into topic and key", () => {
    const r = checkEndpoint({ ...base, path: "/vehicles/1/speed" });
    assert.ok(r.ok);
    assert.deepEqual([r.fields.topic, r.fields.key], ["vehicles", "1/speed"]);
  });
  test("each bad part is named", () => {
    assert.deepEqual(fieldsOf({ ...base, topic: "bad topic", key: "k" }), ["topic"]);
    assert.deepEqual(fieldsOf({ ...base, topic: "__consumer_offsets", key: "k" }), ["topic"]);
    assert.deepEqual(fieldsOf({ ...base, topic: "t", key: "a//b" }), ["key"]);
    assert.deepEqual(fieldsOf({ ...base, topic: "t", keyParam: "1x" }), ["keyParam"]);
    assert.deepEqual(fieldsOf({ ...base, topic: "t" }), ["key"]);
    assert.deepEqual(fieldsOf({ ...base, topic: "t", key: "k", keyParam: "p" }), ["keyParam"]);
    assert.deepEqual(fieldsOf({ ...base }), ["topic", "key"]);
    assert.deepEqual(fieldsOf({ ...base, path: "/only-topic" }), ["path"]);
    assert.deepEqual(fieldsOf({ ...base, path: "/t/k", topic: "t" }), ["path"]);
    assert.deepEqual(fieldsOf({ ...base, path: "/__sluice_catalog/k" }), ["path"]);
  });
});

describe("checkEndpoint: schema and examples", () => {
  const schema = { type: "object", required: ["price"], properties: { price: { type: "number" } } };
  test("a draft 2020-12 schema is accepted and examples are checked against it", () => {
    assert.deepEqual(fieldsOf({ ...base, topic: "t", key: "k", jsonSchema: schema, examples: [{ price: 1 }] }), []);
    assert.deepEqual(fieldsOf({ ...base, topic: "t", key: "k", jsonSchema: schema, examples: [{ price: 1 }, { price: "x" }] }), [
      "examples.1",
    ]);
  });
  test("an invalid schema is refused", () => {
    assert.deepEqual(fieldsOf({ ...base, topic: "t", key: "k", jsonSchema: { type: "objekt" } }), ["jsonSchema"]);
    assert.deepEqual(fieldsOf({ ...base, topic: "t", key: "k", jsonSchema: { $ref: "#/missing" } }), ["jsonSchema"]);
    assert.deepEqual(fieldsOf({ ...base, topic: "t", key: "k", jsonSchema: { $schema: "http://json-schema.org/draft-07/schema#" } }), [
      "jsonSchema",
    ]);
  });
  test("a schema only with the json format", () => {
    assert.deepEqual(fieldsOf({ ...base, payloadFormat: "text", topic: "t", key: "k", jsonSchema: schema }), ["jsonSchema"]);
  });
  test("examples fit the payload format", () => {
    assert.deepEqual(fieldsOf({ ...base, payloadFormat: "text", topic: "t", key: "k", examples: ["hello", 3] }), ["examples.1"]);
    assert.deepEqual(fieldsOf({ ...base, payloadFormat: "bytes", topic: "t", key: "k", examples: ["aGVsbG8=", "not base64!"] }), [
      "examples.1",
    ]);
    assert.deepEqual(fieldsOf({ ...base, topic: "t", key: "k", examples: [{ a: 1 }, "text is JSON too", 3] }), []);
  });
});

describe("input shapes", () => {
  test("operations must be a non-empty subset", () => {
    assert.deepEqual(fieldsOfParse(createEndpointInput, { topic: "t", key: "k", operations: [] }), ["operations"]);
    assert.deepEqual(fieldsOfParse(createEndpointInput, { topic: "t", key: "k", operations: ["read"] }), ["operations.0"]);
    assert.deepEqual(
      parseInput(createEndpointInput, { topic: "t", key: "k", operations: ["publish", "subscribe", "publish"] }).operations,
      ["subscribe", "publish"],
    );
  });
  test("format, schema type, examples count and description length", () => {
    assert.deepEqual(fieldsOfParse(createEndpointInput, { topic: "t", key: "k", operations: ["subscribe"], payloadFormat: "xml" }), [
      "payloadFormat",
    ]);
    assert.deepEqual(fieldsOfParse(createEndpointInput, { topic: "t", key: "k", operations: ["subscribe"], jsonSchema: [1] }), [
      "jsonSchema",
    ]);
    assert.deepEqual(fieldsOfParse(createEndpointInput, { topic: "t", key: "k", operations: ["subscribe"], examples: Array(11).fill(1) }), [
      "examples",
    ]);
    assert.deepEqual(
      fieldsOfParse(createEndpointInput, { topic: "t", key: "k", operations: ["subscribe"], description: "x".repeat(2001) }),
      ["description"],
    );
  });
  test("API fields: name, version, tags", () => {
    assert.deepEqual(fieldsOfParse(createApiInput, { name: "", version: "1.0.0" }), ["name"]);
    assert.deepEqual(fieldsOfParse(createApiInput, { name: "Prices", version: "v 1" }), ["version"]);
    assert.deepEqual(fieldsOfParse(createApiInput, { name: "Prices", version: "1.0.0", tags: ["ok", "not ok"] }), ["tags.1"]);
    assert.deepEqual(
      fieldsOfParse(createApiInput, { name: "Prices", version: "1.0.0", tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }),
      ["tags"],
    );
    assert.deepEqual(parseInput(createApiInput, { name: " Prices ", version: "1.0.0", tags: ["Market-Data", "market-data"] }), {
      name: "Prices",
      version: "1.0.0",
      description: "",
      tags: ["market-data"],
    });
  });
});

describe("checkEndpoint: the value schema of the registry formats", () => {
  const registry = (draft: Partial<EndpointDraft>) => checkEndpoint({ ...base, topic: "prices", keyParam: "symbol", ...draft });

  test("a registry format without valueSchema: the topic strategy, latest version", () => {
    const r = registry({ payloadFormat: "avro" });
    assert.ok(r.ok);
    assert.deepEqual(
      [r.fields.valueSubject, r.fields.valueSubjectStrategy, r.fields.valueRecordName, r.fields.valueSchemaVersion],
      ["prices-value", "topic", null, null],
    );
  });

  test("the record strategies compute the subject from the record name, with a pinned version", () => {
    const record = registry({ payloadFormat: "protobuf", valueSchema: { strategy: "record", recordName: "com.acme.Price", version: 3 } });
    assert.ok(record.ok);
    assert.deepEqual([record.fields.valueSubject, record.fields.valueSchemaVersion], ["com.acme.Price", 3]);
    const topicRecord = registry({
      payloadFormat: "json-schema",
      valueSchema: { strategy: "topic-record", recordName: "com.acme.Price", version: null },
    });
    assert.ok(topicRecord.ok);
    assert.equal(topicRecord.fields.valueSubject, "prices-com.acme.Price");
    const fromPath = checkEndpoint({ ...base, path: "/quotes/{s}", payloadFormat: "avro" });
    assert.ok(fromPath.ok);
    assert.equal(fromPath.fields.valueSubject, "quotes-value");
  });

  test("record names are required by the record strategies, and only by them", () => {
    assert.deepEqual(
      fieldsOf({ ...base, topic: "prices", key: "k", payloadFormat: "avro", valueSchema: { strategy: "record", version: null } }),
      ["valueSchema.recordName"],
    );
    assert.deepEqual(
      fieldsOf({
        ...base,
        topic: "prices",
        key: "k",
        payloadFormat: "avro",
        valueSchema: { strategy: "topic-record", recordName: "a-b", version: null },
      }),
      ["valueSchema.recordName"],
    );
    assert.deepEqual(
      fieldsOf({
        ...base,
        topic: "prices",
        key: "k",
        payloadFormat: "avro",
        valueSchema: { strategy: "topic", recordName: "com.acme.Price", version: null },
      }),
      ["valueSchema.recordName"],
    );
  });

  test("a subject longer than 255 characters is refused", () => {
    const long = `r${".x".repeat(130)}`;
    assert.deepEqual(
      fieldsOf({
        ...base,
        topic: "prices",
        key: "k",
        payloadFormat: "avro",
        valueSchema: { strategy: "topic-record", recordName: long, version: null },
      }),
      ["valueSchema.subject"],
    );
  });

  test("json, text and bytes have no value schema; the registry formats no jsonSchema", () => {
    assert.deepEqual(
      fieldsOf({ ...base, topic: "prices", key: "k", payloadFormat: "json", valueSchema: { strategy: "topic", version: null } }),
      ["valueSchema"],
    );
    const json = checkEndpoint({ ...base, topic: "prices", key: "k" });
    assert.ok(json.ok);
    assert.equal(json.fields.valueSubject, null);
    assert.deepEqual(fieldsOf({ ...base, topic: "prices", key: "k", payloadFormat: "avro", jsonSchema: { type: "object" } }), [
      "jsonSchema",
    ]);
  });

  test("the input: the strategy defaults to topic and the version to null; a version is a positive integer", () => {
    const parsed = parseInput(createEndpointInput, {
      topic: "t",
      key: "k",
      operations: ["subscribe"],
      payloadFormat: "avro",
      valueSchema: {},
    });
    assert.deepEqual(parsed.valueSchema, { strategy: "topic", version: null });
    assert.deepEqual(
      fieldsOfParse(createEndpointInput, {
        topic: "t",
        key: "k",
        operations: ["subscribe"],
        valueSchema: { strategy: "name", version: 0 },
      }),
      ["valueSchema.strategy", "valueSchema.version"],
    );
    assert.deepEqual(fieldsOfParse(createEndpointInput, { topic: "t", key: "k", operations: ["subscribe"], payloadFormat: "xml" }), [
      "payloadFormat",
    ]);
  });
});

describe("checkEndpoint: the key schema (any payload format)", () => {
  test("absent or null is plain keys; any format may have one; the topic strategy names <topic>-key", () => {
    const plain = checkEndpoint({ ...base, topic: "orders", key: "c1", keySchema: null });
    assert.ok(plain.ok);
    assert.deepEqual([plain.fields.keySubject, plain.fields.keySubjectStrategy], [null, null]);
    for (const payloadFormat of ["json", "text", "bytes", "avro"] as const) {
      const r = checkEndpoint({ ...base, topic: "orders", keyParam: "c", payloadFormat, keySchema: { strategy: "topic", version: 4 } });
      assert.ok(r.ok, payloadFormat);
      assert.deepEqual([r.fields.keySubject, r.fields.keySchemaVersion], ["orders-key", 4]);
    }
    const record = checkEndpoint({
      ...base,
      path: "/orders/{c}",
      keySchema: { strategy: "topic-record", recordName: "com.acme.OrderKey", version: null },
    });
    assert.ok(record.ok);
    assert.deepEqual([record.fields.keySubject, record.fields.keyRecordName], ["orders-com.acme.OrderKey", "com.acme.OrderKey"]);
  });

  test("its record-name and subject problems are reported on keySchema.*", () => {
    assert.deepEqual(fieldsOf({ ...base, topic: "orders", key: "k", keySchema: { strategy: "record", version: null } }), [
      "keySchema.recordName",
    ]);
    assert.deepEqual(
      fieldsOf({
        ...base,
        topic: "orders",
        key: "k",
        keySchema: { strategy: "topic-record", recordName: `r${".x".repeat(130)}`, version: null },
      }),
      ["keySchema.subject"],
    );
  });
});
