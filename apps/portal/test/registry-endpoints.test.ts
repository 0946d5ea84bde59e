// Endpoints of the registry formats (avro, protobuf, json-schema) against the
// real schema registry of the test stack (SCHEMA_REGISTRY_URL), PostgreSQL and
// Kafka: the domain functions directly, then the API of the running portal.
// Each test registers its own subjects under unique names.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { endpoints } from "@sluice/db";
import { eq } from "drizzle-orm";

import { authorize, type AuthorizedActor } from "../lib/auth/actor";
import { createApi } from "../lib/domain/apis/create-api";
import { createEndpoint } from "../lib/domain/endpoints/create-endpoint";
import { updateEndpoint } from "../lib/domain/endpoints/update-endpoint";
import { AppError } from "../lib/errors";
import type { TopicLookup } from "../lib/kafka/admin";
import { closePortalRegistry } from "../lib/registry/registry";
import { auditRows, createTopic, fieldsOf, outboxRows, uniqueName } from "./catalog-helpers";
import { db, rawApi, seedUser, type SeededUser } from "./helpers";

const registryUrl = (() => {
  const url = process.env.SCHEMA_REGISTRY_URL;
  if (!url) throw new Error("SCHEMA_REGISTRY_URL is not set: run integration tests through ./sluice test");
  return url.replace(/\/+$/, "");
})();
after(() => closePortalRegistry());

/** Registers a schema with the registry's REST API (not the portal's client); returns its id. */
async function register(subject: string, schema: string, schemaType?: "PROTOBUF" | "JSON"): Promise<number> {
  const res = await fetch(`${registryUrl}/subjects/${encodeURIComponent(subject)}/versions`, {
    method: "POST",
    headers: { "content-type": "application/vnd.schemaregistry.v1+json" },
    body: JSON.stringify({ schema, ...(schemaType ? { schemaType } : {}) }),
  });
  const body = (await res.json()) as { id?: number };
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.id!;
}

const avroRecord = (name: string, fields: { name: string; type: unknown }[]) =>
  JSON.stringify({ type: "record", name, namespace: "sluice.test", fields });

let editor: SeededUser;
let viewer: SeededUser;
let apiId: string;

before(async () => {
  [editor, viewer] = await Promise.all([seedUser("editor"), seedUser("viewer")]);
  // Through the domain: the domain tests below need no running portal.
  const created = await createApi({
    db,
    actor: authorize(editor.actor, "editor"),
    input: { name: uniqueName("Registry test"), version: "1.0.0", description: "", tags: [] },
  });
  apiId = created.id;
});

describe("the endpoint domain with the real registry", () => {
  // Kafka is not the subject here: every topic exists.
  const anyTopic: TopicLookup = async (name) => ({ kind: "found", topic: { name, partitions: 1 } });
  let actor: AuthorizedActor<"editor">;
  before(() => {
    actor = authorize(editor.actor, "editor");
  });

  async function refusal(work: Promise<unknown>) {
    try {
      await work;
    } catch (err) {
      assert.ok(err instanceof AppError, String(err));
      return err;
    }
    assert.fail("accepted");
  }

  test("an avro endpoint by topic strategy, then pinned, then by topic-record strategy, then json again", async () => {
    const topic = uniqueName("quotes");
    await register(`${topic}-value`, avroRecord("Quote", [{ name: "symbol", type: "string" }]));
    await register(
      `${topic}-value`,
      avroRecord("Quote", [
        { name: "symbol", type: "string" },
        { name: "bid", type: ["null", "double"] },
      ]),
    );
    await register(`${topic}-sluice.test.Trade`, avroRecord("Trade", [{ name: "qty", type: "long" }]));

    const created = await createEndpoint({
      db,
      actor,
      apiId,
      topics: anyTopic,
      input: { topic, keyParam: "symbol", operations: ["subscribe", "publish"], payloadFormat: "avro", description: "", examples: [] },
    });
    assert.deepEqual(created.valueSchema, { strategy: "topic", recordName: null, subject: `${topic}-value`, version: null });
    const [record] = await outboxRows(`endpoint/${created.id}`);
    assert.deepEqual((record!.recordValue as { value_schema: unknown }).value_schema, { subject: `${topic}-value`, version: null });

    const pinned = await updateEndpoint({
      db,
      actor,
      endpointId: created.id,
      topics: anyTopic,
      input: { valueSchema: { strategy: "topic", version: 1 } },
    });
    assert.equal(pinned.valueSchema?.version, 1);
    const missingVersion = await refusal(
      updateEndpoint({ db, actor, endpointId: created.id, topics: anyTopic, input: { valueSchema: { strategy: "topic", version: 3 } } }),
    );
    assert.deepEqual([missingVersion.status, missingVersion.fieldErrors[0]?.field], [422, "valueSchema.version"]);

    const byRecord = await updateEndpoint({
      db,
      actor,
      endpointId: created.id,
      topics: anyTopic,
      input: { valueSchema: { strategy: "topic-record", recordName: "sluice.test.Trade", version: null } },
    });
    assert.equal(byRecord.valueSchema?.subject, `${topic}-sluice.test.Trade`);
    // Other fields change without asking the registry again, and keep the subject.
    const described = await updateEndpoint({ db, actor, endpointId: created.id, topics: anyTopic, input: { description: "Trades" } });
    assert.equal(described.valueSchema?.subject, `${topic}-sluice.test.Trade`);

    const json = await updateEndpoint({ db, actor, endpointId: created.id, topics: anyTopic, input: { payloadFormat: "json" } });
    assert.equal(json.valueSchema, null);
    const [row] = await db.select().from(endpoints).where(eq(endpoints.id, created.id));
    assert.deepEqual(
      [row!.valueSubject, row!.valueSubjectStrategy, row!.valueRecordName, row!.valueSchemaVersion],
      [null, null, null, null],
    );
    assert.equal((await auditRows(created.id, "endpoint.update")).length, 4, "the refused update left no entry");
  });

  test("a subject that is not in the registry, or of another schema type, is a 422 naming valueSchema.subject", async () => {
    const topic = uniqueName("orders");
    const missing = await refusal(
      createEndpoint({
        db,
        actor,
        apiId,
        topics: anyTopic,
        input: { topic, key: "k", operations: ["subscribe"], payloadFormat: "protobuf", description: "", examples: [] },
      }),
    );
    assert.deepEqual([missing.status, missing.fieldErrors[0]?.field], [422, "valueSchema.subject"]);
    assert.match(missing.message, new RegExp(`no subject "${topic}-value"`));

    await register(`${topic}-value`, 'syntax = "proto3";\npackage sluice.test;\nmessage Order { string id = 1; }\n', "PROTOBUF");
    const wrongType = await refusal(
      createEndpoint({
        db,
        actor,
        apiId,
        topics: anyTopic,
        input: { topic, key: "k", operations: ["subscribe"], payloadFormat: "avro", description: "", examples: [] },
      }),
    );
    assert.match(wrongType.message, /holds PROTOBUF schemas, not AVRO/);
    const ok = await createEndpoint({
      db,
      actor,
      apiId,
      topics: anyTopic,
      input: { topic, key: "k", operations: ["subscribe"], payloadFormat: "protobuf", description: "", examples: [] },
    });
    assert.equal(ok.valueSchema?.subject, `${topic}-value`);
  });
});

describe("registry-encoded keys with the real registry", () => {
  const anyTopic: TopicLookup = async (name) => ({ kind: "found", topic: { name, partitions: 1 } });
  let actor: AuthorizedActor<"editor">;
  before(() => {
    actor = authorize(editor.actor, "editor");
  });
  const refusal = async (work: Promise<unknown>) => {
    try {
      await work;
    } catch (err) {
      assert.ok(err instanceof AppError, String(err));
      return err;
    }
    assert.fail("accepted");
  };

  test("a json endpoint with Avro string keys (<topic>-key), pinned, then plain keys again; the catalog record carries key_schema", async () => {
    const topic = uniqueName("carts");
    await register(`${topic}-key`, '"string"');
    await register(`${topic}-key`, '{"type":"string","avro.java.string":"String"}');
    const input = { topic, key: "c1", operations: ["subscribe" as const], payloadFormat: "json" as const, description: "", examples: [] };
    const created = await createEndpoint({
      db,
      actor,
      apiId,
      topics: anyTopic,
      input: { ...input, keySchema: { strategy: "topic", version: null } },
    });
    assert.deepEqual(created.keySchema, { strategy: "topic", recordName: null, subject: `${topic}-key`, version: null });
    assert.equal(created.valueSchema, null);
    const [record] = await outboxRows(`endpoint/${created.id}`);
    const value = record!.recordValue as { key_schema: unknown; value_schema: unknown };
    assert.deepEqual([value.key_schema, value.value_schema], [{ subject: `${topic}-key`, version: null }, null]);

    const pinned = await updateEndpoint({
      db,
      actor,
      endpointId: created.id,
      topics: anyTopic,
      input: { keySchema: { strategy: "topic", version: 2 } },
    });
    assert.equal(pinned.keySchema?.version, 2);
    const missing = await refusal(
      updateEndpoint({ db, actor, endpointId: created.id, topics: anyTopic, input: { keySchema: { strategy: "topic", version: 3 } } }),
    );
    assert.deepEqual([missing.status, missing.fieldErrors[0]?.field], [422, "keySchema.version"]);
    // Other changes keep the key schema.
    assert.equal(
      (await updateEndpoint({ db, actor, endpointId: created.id, topics: anyTopic, input: { description: "x" } })).keySchema?.version,
      2,
    );

    const plain = await updateEndpoint({ db, actor, endpointId: created.id, topics: anyTopic, input: { keySchema: null } });
    assert.equal(plain.keySchema, null);
    const [row] = await db.select().from(endpoints).where(eq(endpoints.id, created.id));
    assert.deepEqual([row!.keySubject, row!.keySubjectStrategy, row!.keyRecordName, row!.keySchemaVersion], [null, null, null, null]);
  });

  test("an exact key must be a value of a record key schema, as the gateway writes it; a missing key subject is a 422", async () => {
    const topic = uniqueName("baskets");
    const missing = await refusal(
      createEndpoint({
        db,
        actor,
        apiId,
        topics: anyTopic,
        input: {
          topic,
          keyParam: "k",
          operations: ["subscribe"],
          payloadFormat: "json",
          keySchema: { strategy: "topic", version: null },
          description: "",
          examples: [],
        },
      }),
    );
    assert.deepEqual([missing.status, missing.fieldErrors[0]?.field], [422, "keySchema.subject"]);
    assert.match(missing.message, new RegExp(`no subject "${topic}-key"`));

    const recordName = `sluice.test.K${uniqueName("").replaceAll("-", "")}`;
    await register(
      recordName,
      JSON.stringify({
        type: "record",
        name: recordName.split(".").pop(),
        namespace: "sluice.test",
        fields: [
          { name: "shop", type: "string" },
          { name: "id", type: "int" },
        ],
      }),
    );
    const keySchema = { strategy: "record" as const, recordName, version: null };
    const make = (key: string) =>
      createEndpoint({
        db,
        actor,
        apiId,
        topics: anyTopic,
        input: { topic, key, operations: ["subscribe"], payloadFormat: "text", keySchema, description: "", examples: [] },
      });
    const reordered = await refusal(make('{"id":7,"shop":"eu"}'));
    assert.deepEqual([reordered.status, reordered.fieldErrors[0]?.field], [422, "key"]);
    assert.match(reordered.message, /schema's order \(\{"shop":"eu","id":7\}\)/);
    const wrong = await refusal(make('{"shop":"eu"}'));
    assert.match(wrong.message, /required property 'id'/);
    const ok = await make('{"shop":"eu","id":7}');
    assert.equal(ok.keySchema?.subject, recordName);
    assert.equal(ok.path, `/${topic}/%7B%22shop%22%3A%22eu%22%2C%22id%22%3A7%7D`);
  });
});

describe("the API of the running portal", () => {
  let topic: string;
  before(async () => {
    topic = await createTopic("registry", 1);
    await register(`${topic}-value`, JSON.stringify({ type: "object", properties: { id: { type: "string" } } }), "JSON");
    // Apicurio needs more than {"type":"object"} to tell a JSON Schema (error 42201).
    await register(`${topic}-sluice.test.Event`, JSON.stringify({ type: "object", properties: { kind: { type: "string" } } }), "JSON");
  });
  const post = (body: Record<string, unknown>, key = editor.key) =>
    rawApi(`/apis/${apiId}/endpoints`, {
      method: "POST",
      key,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  test("create and get carry valueSchema with the computed subject; a given subject is ignored", async () => {
    const res = await post({
      topic,
      keyParam: "id",
      operations: ["subscribe"],
      payloadFormat: "json-schema",
      valueSchema: { subject: "ignored" },
    });
    const created = await res.json();
    assert.equal(res.status, 201, JSON.stringify(created));
    assert.deepEqual(created.valueSchema, { strategy: "topic", recordName: null, subject: `${topic}-value`, version: null });
    const { data } = await viewer.api.GET("/endpoints/{endpointId}", { params: { path: { endpointId: created.id } } });
    assert.deepEqual(data?.valueSchema, created.valueSchema);

    const schema = await viewer.api.GET("/endpoints/{endpointId}/value-schema", { params: { path: { endpointId: created.id } } });
    assert.equal(schema.response.status, 200);
    assert.equal(schema.data?.subject, `${topic}-value`);
    assert.equal(schema.data?.schemaType, "JSON");
    assert.deepEqual(JSON.parse(schema.data!.schema), { type: "object", properties: { id: { type: "string" } } });
  });

  test("errors name the field: a pinned version that does not exist, a record name, a value schema on json", async () => {
    for (const [body, fields] of [
      [{ topic, key: "v", operations: ["subscribe"], payloadFormat: "json-schema", valueSchema: { version: 9 } }, ["valueSchema.version"]],
      [
        { topic, key: "r", operations: ["subscribe"], payloadFormat: "json-schema", valueSchema: { strategy: "record" } },
        ["valueSchema.recordName"],
      ],
      [
        { topic, key: "s", operations: ["subscribe"], payloadFormat: "avro", valueSchema: { strategy: "record", recordName: "no.Such" } },
        ["valueSchema.subject"],
      ],
      [{ topic, key: "j", operations: ["subscribe"], payloadFormat: "json", valueSchema: { strategy: "topic" } }, ["valueSchema"]],
    ] as const) {
      const res = await post(body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.deepEqual(fieldsOf(await res.json()), fields, JSON.stringify(body));
    }
  });

  test("a topic's subjects, marked by strategy; a subject version; editors only", async () => {
    const listed = await editor.api.GET("/topics/{topic}/subjects", { params: { path: { topic } } });
    assert.equal(listed.response.status, 200);
    assert.equal(listed.data?.configured, true);
    const mine = listed.data!.items.filter((s) => s.strategy !== "record");
    assert.deepEqual(mine, [
      { subject: `${topic}-value`, role: "value", strategy: "topic", recordName: null },
      { subject: `${topic}-sluice.test.Event`, role: "value", strategy: "topic-record", recordName: "sluice.test.Event" },
    ]);
    const version = await editor.api.GET("/subjects/{subject}/versions/{version}", {
      params: { path: { subject: `${topic}-value`, version: "latest" } },
    });
    assert.deepEqual([version.data?.subject, version.data?.version, version.data?.schemaType], [`${topic}-value`, 1, "JSON"]);
    const missing = await rawApi(`/subjects/${encodeURIComponent(`${topic}-value`)}/versions/5`, { key: editor.key });
    assert.equal(missing.status, 404);
    assert.equal((await rawApi(`/topics/${topic}/subjects`, { key: viewer.key })).status, 403);
    assert.equal((await rawApi(`/subjects/${encodeURIComponent(`${topic}-value`)}/versions/latest`, { key: viewer.key })).status, 403);
  });

  test("keySchema on create, get and the key-schema route; the topic's key subjects with role=key; no key schema: 404", async () => {
    await register(`${topic}-key`, '"string"');
    const res = await post({ topic, key: "k1", operations: ["subscribe"], keySchema: { strategy: "topic" } });
    const created = await res.json();
    assert.equal(res.status, 201, JSON.stringify(created));
    assert.deepEqual(created.keySchema, { strategy: "topic", recordName: null, subject: `${topic}-key`, version: null });
    const { data } = await viewer.api.GET("/endpoints/{endpointId}", { params: { path: { endpointId: created.id } } });
    assert.deepEqual(data?.keySchema, created.keySchema);
    const schema = await viewer.api.GET("/endpoints/{endpointId}/key-schema", { params: { path: { endpointId: created.id } } });
    assert.deepEqual(
      [schema.response.status, schema.data?.subject, schema.data?.schemaType, schema.data?.schema],
      [200, `${topic}-key`, "AVRO", '"string"'],
    );

    const keys = await editor.api.GET("/topics/{topic}/subjects", { params: { path: { topic }, query: { role: "key" } } });
    assert.deepEqual(
      keys.data!.items.filter((s) => s.strategy !== "record"),
      [
        { subject: `${topic}-key`, role: "key", strategy: "topic", recordName: null },
        { subject: `${topic}-sluice.test.Event`, role: "key", strategy: "topic-record", recordName: "sluice.test.Event" },
      ],
    );
    assert.equal((await rawApi(`/topics/${topic}/subjects?role=both`, { key: editor.key })).status, 422);

    const bad = await post({ topic, key: "k2", operations: ["subscribe"], keySchema: { strategy: "topic", version: 4 } });
    assert.equal(bad.status, 422);
    assert.deepEqual(fieldsOf(await bad.json()), ["keySchema.version"]);
    assert.equal((await post({ topic, key: "k3", operations: ["subscribe"], keySchema: { strategy: "topic" } }, viewer.key)).status, 403);

    const plain = await (await post({ topic, key: "plain-keys", operations: ["subscribe"] })).json();
    assert.equal(plain.keySchema, null);
    assert.equal((await rawApi(`/endpoints/${plain.id}/key-schema`, { key: viewer.key })).status, 404);
  });

  test("a json endpoint has no registry schema: 404", async () => {
    const res = await post({ topic, key: "plain", operations: ["subscribe"] });
    const created = await res.json();
    assert.equal(res.status, 201, JSON.stringify(created));
    assert.equal(created.valueSchema, null);
    assert.equal((await rawApi(`/endpoints/${created.id}/value-schema`, { key: viewer.key })).status, 404);
  });
});
