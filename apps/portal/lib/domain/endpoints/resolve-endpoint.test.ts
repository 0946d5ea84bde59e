import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { AppError } from "../../errors";
import type { TopicLookup } from "../../kafka/admin";
import type { EndpointDraft } from "../../validation/endpoints";
import { RegistryError } from "@sluice/schema-registry";

import type { SchemaRegistry } from "../../registry/registry";
import { resolveEndpoint, topicDeniedMessage } from "./resolve-endpoint";

const base: EndpointDraft = { operations: ["subscribe"], payloadFormat: "json", jsonSchema: null, description: "", examples: [] };
const always = () => true;

/** The field errors resolveEndpoint answers with, or [] when it resolves. */
async function fieldErrors(draft: EndpointDraft, topics: TopicLookup) {
  try {
    await resolveEndpoint(draft, { topics, checkTopic: always });
    return [];
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.status, 422);
    return err.fieldErrors;
  }
}

describe("resolveEndpoint: what Kafka says about the topic", () => {
  const denied: TopicLookup = async () => ({ kind: "denied", principal: "User:sluice-portal (KAFKA_SASL_USERNAME)" });

  test("a topic Kafka has resolves", async () => {
    const fields = await resolveEndpoint(
      { ...base, path: "/orders/{id}" },
      { topics: async (name) => ({ kind: "found", topic: { name, partitions: 3 } }), checkTopic: always },
    );
    assert.equal(fields.topic, "orders");
  });

  test("a missing topic is a 422 saying it does not exist, on the field the caller used", async () => {
    const missing: TopicLookup = async () => ({ kind: "missing" });
    assert.deepEqual(await fieldErrors({ ...base, path: "/orders/{id}" }, missing), [
      { field: "path", message: 'Kafka has no topic named "orders"; create the topic first or choose one of the existing topics' },
    ]);
    assert.equal((await fieldErrors({ ...base, topic: "orders", keyParam: "id" }, missing))[0]?.field, "topic");
  });

  test("a denied topic is a 422 naming the principal, the topic and the ACL to grant", async () => {
    const errors = await fieldErrors({ ...base, topic: "orders", key: "k" }, denied);
    assert.deepEqual(errors, [{ field: "topic", message: topicDeniedMessage("orders", "User:sluice-portal (KAFKA_SASL_USERNAME)") }]);
    assert.equal((await fieldErrors({ ...base, path: "/orders/k" }, denied))[0]?.field, "path");
  });

  test("the denial message: who, which topic, which ACL, and no claim that the topic exists", () => {
    assert.equal(
      topicDeniedMessage("orders", "User:sluice-portal (KAFKA_SASL_USERNAME)"),
      `Kafka's ACLs deny the portal's Kafka principal, User:sluice-portal (KAFKA_SASL_USERNAME), access to topic "orders" ` +
        `(Kafka does not say whether the topic exists); grant that principal DESCRIBE on the topic ` +
        `(see "Kafka ACLs each component needs" in the README) or choose another topic`,
    );
  });

  test("an unchanged topic (update) is not looked up", async () => {
    let asked = 0;
    const fields = await resolveEndpoint(
      { ...base, topic: "orders", key: "k" },
      {
        topics: async () => {
          asked++;
          return { kind: "missing" };
        },
        checkTopic: () => false,
      },
    );
    assert.equal(fields.path, "/orders/k");
    assert.equal(asked, 0);
  });
});

describe("resolveEndpoint: what the schema registry says about the value subject", () => {
  const found: TopicLookup = async (name) => ({ kind: "found", topic: { name, partitions: 1 } });
  const avro = { ...base, topic: "prices", keyParam: "symbol", payloadFormat: "avro" as const };
  /** A registry with prices-value (AVRO, versions 1 and 2) and com.acme.Order (PROTOBUF). */
  const registry: SchemaRegistry = {
    subjects: async () => ["prices-value", "com.acme.Order"],
    schemaById: async () => {
      throw new Error("not used");
    },
    version: async (subject, version) => {
      const types: Record<string, "AVRO" | "PROTOBUF"> = { "prices-value": "AVRO", "com.acme.Order": "PROTOBUF" };
      const schemaType = types[subject];
      if (!schemaType) throw new RegistryError("not_found", `no subject ${subject}`, 404, 40401);
      if (version !== "latest" && version > 2) throw new RegistryError("not_found", `no version ${version}`, 404, 40402);
      return { subject, version: version === "latest" ? 2 : version, id: 1, schemaType, schema: "{}", references: [] };
    },
  };
  const resolve = (draft: EndpointDraft, reg: SchemaRegistry | null = registry) =>
    resolveEndpoint(draft, { topics: found, checkTopic: always, registry: reg });
  const failure = async (draft: EndpointDraft, reg: SchemaRegistry | null = registry) => {
    try {
      await resolve(draft, reg);
    } catch (err) {
      assert.ok(err instanceof AppError, String(err));
      return err;
    }
    assert.fail("resolved");
  };

  test("an existing subject and version resolve", async () => {
    assert.equal((await resolve(avro)).valueSubject, "prices-value");
    assert.equal((await resolve({ ...avro, valueSchema: { strategy: "topic", version: 2 } })).valueSchemaVersion, 2);
  });

  test("no registry configured is a 422 on payloadFormat", async () => {
    const err = await failure(avro, null);
    assert.equal(err.status, 422);
    assert.equal(err.fieldErrors[0]?.field, "payloadFormat");
    assert.match(err.message, /no schema registry configured \(set SCHEMA_REGISTRY_URL\)/);
  });

  test("a missing subject is a 422 on valueSchema.subject, a missing version on valueSchema.version", async () => {
    const subject = await failure({ ...avro, valueSchema: { strategy: "record", recordName: "com.acme.Price", version: null } });
    assert.deepEqual([subject.status, subject.fieldErrors[0]?.field], [422, "valueSchema.subject"]);
    assert.match(subject.message, /no subject "com\.acme\.Price"/);
    const version = await failure({ ...avro, valueSchema: { strategy: "topic", version: 7 } });
    assert.deepEqual([version.status, version.fieldErrors[0]?.field], [422, "valueSchema.version"]);
  });

  test("a subject of another schema type is a 422 naming the format that fits", async () => {
    const err = await failure({ ...avro, valueSchema: { strategy: "record", recordName: "com.acme.Order", version: null } });
    assert.equal(err.fieldErrors[0]?.field, "valueSchema.subject");
    assert.match(err.message, /holds PROTOBUF schemas, not AVRO.*\(protobuf\)/);
  });

  test("an unreachable registry is a 503", async () => {
    const down: SchemaRegistry = {
      ...registry,
      version: async () => {
        throw new RegistryError("unavailable", "SCHEMA_REGISTRY_URL (http://127.0.0.1:1): GET /subjects: ECONNREFUSED");
      },
    };
    const err = await failure(avro, down);
    assert.equal(err.status, 503);
    assert.match(err.message, /schema registry is not reachable \(SCHEMA_REGISTRY_URL/);
  });

  test("json endpoints never ask the registry", async () => {
    assert.equal((await resolve({ ...base, topic: "prices", key: "k" }, null)).valueSubject, null);
  });
});

describe("resolveEndpoint: the key schema (any payload format)", () => {
  const found: TopicLookup = async (name) => ({ kind: "found", topic: { name, partitions: 1 } });
  const cartKey = JSON.stringify({
    type: "record",
    name: "CartKey",
    namespace: "com.acme",
    fields: [
      { name: "shop", type: "string" },
      { name: "id", type: "int" },
    ],
  });
  /** orders-key: the Avro string (versions 1 and 2); com.acme.CartKey: an Avro record. */
  const schemas: Record<string, string> = { "orders-key": '"string"', "com.acme.CartKey": cartKey };
  const asked: string[] = [];
  const registry: SchemaRegistry = {
    subjects: async () => Object.keys(schemas),
    schemaById: async () => {
      throw new Error("not used");
    },
    version: async (subject, version) => {
      asked.push(`${subject}@${version}`);
      const schema = schemas[subject];
      if (!schema) throw new RegistryError("not_found", `no subject ${subject}`, 404, 40401);
      if (version !== "latest" && version > 2) throw new RegistryError("not_found", `no version ${version}`, 404, 40402);
      return { subject, version: version === "latest" ? 2 : version, id: 9, schemaType: "AVRO", schema, references: [] };
    },
  };
  const resolve = (draft: EndpointDraft, reg: SchemaRegistry | null = registry) =>
    resolveEndpoint(draft, { topics: found, checkTopic: always, registry: reg });
  const failure = async (draft: EndpointDraft, reg: SchemaRegistry | null = registry) => {
    try {
      await resolve(draft, reg);
    } catch (err) {
      assert.ok(err instanceof AppError, String(err));
      return err;
    }
    assert.fail("resolved");
  };
  const record = { strategy: "record" as const, recordName: "com.acme.CartKey", version: null };

  test("the topic strategy's key subject is <topic>-key, on a json endpoint, pinned or latest", async () => {
    const fields = await resolve({ ...base, topic: "orders", keyParam: "customer", keySchema: { strategy: "topic", version: 2 } });
    assert.deepEqual(
      [fields.keySubject, fields.keySubjectStrategy, fields.keyRecordName, fields.keySchemaVersion, fields.valueSubject],
      ["orders-key", "topic", null, 2, null],
    );
    assert.equal((await resolve({ ...base, topic: "orders", key: "c1" })).keySubject, null, "no keySchema: plain keys");
  });

  test("no registry configured is a 422 on keySchema naming SCHEMA_REGISTRY_URL", async () => {
    const err = await failure({ ...base, topic: "orders", key: "c1", keySchema: { strategy: "topic", version: null } }, null);
    assert.deepEqual([err.status, err.fieldErrors[0]?.field], [422, "keySchema"]);
    assert.match(err.message, /SCHEMA_REGISTRY_URL/);
  });

  test("a missing key subject or version is a 422 on keySchema.subject / keySchema.version", async () => {
    const subject = await failure({ ...base, topic: "carts", keyParam: "id", keySchema: { strategy: "topic", version: null } });
    assert.deepEqual([subject.fieldErrors[0]?.field], ["keySchema.subject"]);
    assert.match(subject.message, /no subject "carts-key" \(the topic strategy's key subject for topic "carts"\)/);
    const version = await failure({ ...base, topic: "orders", keyParam: "id", keySchema: { strategy: "topic", version: 3 } });
    assert.deepEqual([version.fieldErrors[0]?.field], ["keySchema.version"]);
    const recordName = await failure({ ...base, topic: "orders", keyParam: "id", keySchema: { strategy: "record", version: null } });
    assert.deepEqual([recordName.fieldErrors[0]?.field], ["keySchema.recordName"]);
  });

  test("an exact key must be a value of the key schema, written as the gateway writes it", async () => {
    assert.equal((await resolve({ ...base, topic: "orders", key: "c1", keySchema: { strategy: "topic", version: null } })).key, "c1");
    const key = '{"shop":"eu","id":7}';
    assert.equal((await resolve({ ...base, topic: "carts", key, keySchema: record })).key, key);
    const wrong = await failure({ ...base, topic: "carts", key: "c1", keySchema: record });
    assert.deepEqual([wrong.status, wrong.fieldErrors[0]?.field], [422, "key"]);
    assert.match(wrong.message, /not JSON/);
    const order = await failure({ ...base, topic: "carts", key: '{"id":7,"shop":"eu"}', keySchema: record });
    assert.equal(order.fieldErrors[0]?.field, "key");
    assert.match(order.message, /schema's order \(\{"shop":"eu","id":7\}\)/);
  });

  test("an unreachable registry is a 503", async () => {
    const down: SchemaRegistry = {
      ...registry,
      version: async () => {
        throw new RegistryError("unavailable", "SCHEMA_REGISTRY_URL (http://127.0.0.1:1): ECONNREFUSED");
      },
    };
    const err = await failure({ ...base, topic: "orders", key: "c1", keySchema: { strategy: "topic", version: null } }, down);
    assert.equal(err.status, 503);
  });

  test("an update that changes neither key subject, version nor key does not ask the registry", async () => {
    asked.length = 0;
    await resolveEndpoint(
      { ...base, topic: "orders", key: "c1", keySchema: { strategy: "topic", version: null } },
      { topics: found, checkTopic: () => false, registry, checkKeySubject: () => false },
    );
    assert.deepEqual(asked, []);
  });
});
