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
