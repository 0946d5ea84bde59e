// The AsyncAPI document of registry-backed endpoints (avro, protobuf,
// json-schema): the payload is the JSON Schema of the JSON the gateway serves,
// the original schema rides along, and the official parser accepts it all.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { RegistryError, registrySchemaToJsonSchema, type SubjectVersion } from "@sluice/schema-registry";

import type { SchemaRegistry } from "../registry/registry";
import { compileJsonSchema, describeErrors } from "../validation/json-schema";
import { buildAsyncApiDocument, type ApiForDocument, type EndpointForDocument } from "./build-document";
import { LATEST_TTL_MS, registrySchemasFor } from "./registry-schemas";
import { parseAsyncApi } from "./validate-document";

const api: ApiForDocument = { id: "6f1c2d3e-0000-4000-8000-000000000002", name: "Shop", version: "2.0.0", description: "", tags: [] };
const gatewayUrl = "https://gw.example.com";

const orderAvro = {
  type: "record",
  name: "Order",
  namespace: "shop",
  fields: [
    { name: "id", type: "string" },
    { name: "total", type: { type: "bytes", logicalType: "decimal", precision: 9, scale: 2 } },
    { name: "created_at", type: { type: "long", logicalType: "timestamp-millis" } },
    { name: "note", type: ["null", "string"], default: null },
    {
      name: "lines",
      type: {
        type: "array",
        items: {
          type: "record",
          name: "Line",
          fields: [
            { name: "sku", type: "string" },
            { name: "parts", type: { type: "array", items: "Line" } },
          ],
        },
      },
    },
  ],
};
const paymentProto = `syntax = "proto3";
package pay.v1;
import "google/protobuf/timestamp.proto";
message Payment {
  string id = 1;
  int64 amount_cents = 2;
  google.protobuf.Timestamp at = 3;
  oneof method { string card = 4; string iban = 5; }
  repeated Payment refunds = 6;
}`;
const customerJson = {
  $schema: "http://json-schema.org/draft-07/schema#",
  type: "object",
  required: ["id"],
  properties: { id: { type: "string" }, tier: { $ref: "#/definitions/tier" } },
  definitions: { tier: { enum: ["gold", "silver"] } },
};

const versions: Record<string, SubjectVersion> = {
  "orders-value/2": { subject: "orders-value", version: 2, id: 11, schemaType: "AVRO", schema: JSON.stringify(orderAvro), references: [] },
  "payments-value/latest": { subject: "payments-value", version: 1, id: 12, schemaType: "PROTOBUF", schema: paymentProto, references: [] },
  "customers-shop.Customer/latest": {
    subject: "customers-shop.Customer",
    version: 4,
    id: 13,
    schemaType: "JSON",
    schema: JSON.stringify(customerJson),
    references: [],
  },
};

const cartKeyAvro = {
  type: "record",
  name: "CartKey",
  namespace: "shop",
  fields: [
    { name: "shop", type: "string" },
    { name: "id", type: "int" },
    { name: "parent", type: ["null", "CartKey"], default: null },
  ],
};
versions["carts-key/latest"] = {
  subject: "carts-key",
  version: 3,
  id: 21,
  schemaType: "AVRO",
  schema: JSON.stringify(cartKeyAvro),
  references: [],
};
versions["orders-key/1"] = { subject: "orders-key", version: 1, id: 22, schemaType: "AVRO", schema: '"string"', references: [] };

function fakeRegistry(options: { down?: boolean } = {}) {
  const asked: string[] = [];
  const registry: SchemaRegistry = {
    subjects: async () => [],
    schemaById: async () => {
      throw new Error("not used");
    },
    version: async (subject, version) => {
      asked.push(`${subject}/${version}`);
      if (options.down) throw new RegistryError("unavailable", "SCHEMA_REGISTRY_URL (http://127.0.0.1:1): ECONNREFUSED");
      const v = versions[`${subject}/${version}`];
      if (!v) throw new RegistryError("not_found", `subject ${subject} not found`, 404, 40401);
      return v;
    },
  };
  return { registry, asked };
}

let n = 0;
function endpoint(overrides: Partial<EndpointForDocument> & Pick<EndpointForDocument, "path" | "topic">): EndpointForDocument {
  n += 1;
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    key: null,
    keyParam: "id",
    operations: ["subscribe", "publish"],
    payloadFormat: "json",
    jsonSchema: null,
    description: "",
    examples: [],
    ...overrides,
  };
}

const avroEndpoint = endpoint({
  path: "/orders/{id}",
  topic: "orders",
  payloadFormat: "avro",
  valueSubject: "orders-value",
  valueSubjectStrategy: "topic",
  valueSchemaVersion: 2,
});
const protobufEndpoint = endpoint({
  path: "/payments/{id}",
  topic: "payments",
  payloadFormat: "protobuf",
  valueSubject: "payments-value",
  valueSubjectStrategy: "topic",
});
const jsonSchemaEndpoint = endpoint({
  path: "/customers/{id}",
  topic: "customers",
  payloadFormat: "json-schema",
  valueSubject: "customers-shop.Customer",
  valueSubjectStrategy: "topic-record",
});
const all = [avroEndpoint, protobufEndpoint, jsonSchemaEndpoint];

// biome-ignore lint/suspicious/noExplicitAny: the tests walk the document freely
type Json = Record<string, any>;

async function assertValid(doc: unknown) {
  const { document, errors } = await parseAsyncApi(JSON.parse(JSON.stringify(doc)));
  assert.deepEqual(errors, []);
  assert.ok(document);
  return document;
}

describe("AsyncAPI document of registry-encoded keys", () => {
  // A json endpoint with Avro record keys (recursive: $refs rebased into the binding), and an avro one with Avro string keys.
  const carts = endpoint({ path: "/carts/{cart}", topic: "carts", keyParam: "cart", keySubject: "carts-key", keySubjectStrategy: "topic" });
  const orders = endpoint({
    path: "/orders/{id}",
    topic: "orders",
    payloadFormat: "avro",
    valueSubject: "orders-value",
    valueSubjectStrategy: "topic",
    valueSchemaVersion: 2,
    keySubject: "orders-key",
    keySubjectStrategy: "topic",
    keySchemaVersion: 1,
  });

  test("the Kafka binding's key is the converted key schema with its original; valid for the official parser", async () => {
    const { registry } = fakeRegistry();
    const [registrySchemas, registryKeySchemas] = await Promise.all([
      registrySchemasFor({ endpoints: [carts, orders], registry }),
      registrySchemasFor({ endpoints: [carts, orders], registry, role: "key" }),
    ]);
    assert.deepEqual([...registrySchemas.keys()], [orders.id], "carts has json values");
    const doc = buildAsyncApiDocument(api, [carts, orders], { gatewayUrl, registrySchemas, registryKeySchemas });
    const parsed = await assertValid(doc);
    const m = doc.components.messages as Json;

    const cartKey = m.cartsCartMessage.bindings.kafka;
    assert.deepEqual(Object.keys(cartKey), ["key", "bindingVersion"], "json values: no schema id in the payload");
    assert.equal(cartKey.key.$schema, undefined);
    // The recursive record lives in $defs, its $refs rebased to where the key sits in the document.
    assert.equal(cartKey.key.$ref, "#/components/messages/cartsCartMessage/bindings/kafka/key/$defs/shop.CartKey");
    assert.deepEqual(cartKey.key.$defs["shop.CartKey"].required, ["shop", "id", "parent"]);
    assert.deepEqual(cartKey.key["x-sluice-registry-schema"], {
      subject: "carts-key",
      version: 3,
      pinned: false,
      id: 21,
      schemaType: "AVRO",
      schemaFormat: "application/vnd.apache.avro+json;version=1.9.0",
      schema: cartKeyAvro,
    });
    assert.equal(m.cartsCartMessage["x-sluice-registry-schema"], undefined, "the value is plain json");
    assert.match(m.cartsCartMessage.description, /keys are encoded with registry subject `carts-key`.*compact JSON/);
    assert.match((doc.channels.cartsCart!.parameters as Json).cart.description, /JSON text: a string key is itself/);

    const orderBinding = m.ordersIdMessage.bindings.kafka;
    assert.deepEqual(orderBinding.key, {
      type: "string",
      "x-sluice-registry-schema": {
        subject: "orders-key",
        version: 1,
        pinned: true,
        id: 22,
        schemaType: "AVRO",
        schemaFormat: "application/vnd.apache.avro+json;version=1.9.0",
        schema: "string",
      },
    });
    assert.equal(orderBinding.schemaIdLocation, "payload");
    assert.equal(m.ordersIdMessage["x-sluice-registry-schema"].subject, "orders-value");

    // The parser reads the binding's key as a schema.
    const binding = parsed
      .messages()
      .all()
      .find((message) => message.id() === "ordersIdMessage")!
      .bindings()
      .get("kafka")!;
    assert.equal((binding.value() as Json).key.type, "string");
  });

  test("a key schema the registry cannot give: the binding says why, the document still validates", async () => {
    const { registry } = fakeRegistry({ down: true });
    const registryKeySchemas = await registrySchemasFor({ endpoints: [carts], registry, role: "key", log: () => {} });
    const doc = buildAsyncApiDocument(api, [carts], { gatewayUrl, registryKeySchemas });
    await assertValid(doc);
    const key = (doc.components.messages.cartsCartMessage as Json).bindings.kafka.key;
    assert.match(key.description, /could not be read \(SCHEMA_REGISTRY_URL/);
    assert.deepEqual(Object.keys(key["x-sluice-registry-schema"]), ["subject", "version", "error"]);
  });
});

describe("AsyncAPI document of registry endpoints", () => {
  test("Avro, Protobuf and JSON Schema: converted payloads, original schemas, Kafka binding; valid for the official parser", async () => {
    const { registry } = fakeRegistry();
    const registrySchemas = await registrySchemasFor({ endpoints: all, registry });
    const doc = buildAsyncApiDocument(api, all, { gatewayUrl, registrySchemas });
    const parsed = await assertValid(doc);
    const m = doc.components.messages as Json;

    const avro = m.ordersIdMessage;
    assert.equal(avro.contentType, "application/json");
    assert.equal(avro.payload.schemaFormat, "application/schema+json;version=draft-2020-12");
    assert.deepEqual(avro.payload.schema.required, ["id", "total", "created_at", "note", "lines"]);
    assert.deepEqual(avro.payload.schema.properties.lines.items, {
      $ref: "#/components/messages/ordersIdMessage/payload/schema/$defs/shop.Line",
    });
    assert.deepEqual(avro.bindings, {
      kafka: {
        schemaIdLocation: "payload",
        schemaIdPayloadEncoding: "confluent",
        schemaLookupStrategy: "TopicNameStrategy",
        bindingVersion: "0.5.0",
      },
    });
    assert.deepEqual(avro["x-sluice-registry-schema"], {
      subject: "orders-value",
      version: 2,
      pinned: true,
      id: 11,
      schemaType: "AVRO",
      schemaFormat: "application/vnd.apache.avro+json;version=1.9.0",
      schema: orderAvro,
    });
    assert.match(avro.description, /subject `orders-value`.*version 2 \(schema id 11\)/);
    assert.match(doc.operations.publishOrdersId!.description as string, /version 2 of registry subject `orders-value`/);

    const proto = m.paymentsIdMessage;
    assert.deepEqual(Object.keys(proto.payload.schema.$defs), ["pay.v1.Payment"], "the recursive root message lives in $defs");
    const payment = proto.payload.schema.$defs["pay.v1.Payment"];
    assert.deepEqual(Object.keys(payment.properties), ["id", "amountCents", "at", "card", "iban", "refunds"]);
    assert.equal(payment.properties.amountCents.type, "string");
    assert.deepEqual(proto["x-sluice-registry-schema"].schemaFormat, "application/vnd.google.protobuf;version=3");
    assert.equal(proto["x-sluice-registry-schema"].schema, paymentProto);
    assert.equal(proto["x-sluice-registry-schema"].pinned, false);
    assert.match(doc.operations.publishPaymentsId!.description as string, /the latest version of registry subject `payments-value`/);

    const json = m.customersIdMessage;
    assert.equal(json.payload.schemaFormat, "application/schema+json;version=draft-07", "a JSON Schema keeps its dialect");
    assert.equal(json.bindings.kafka.schemaLookupStrategy, "TopicRecordNameStrategy");
    assert.equal(json["x-sluice-registry-schema"].schema, JSON.stringify(customerJson), "kept as text: its $refs are its own");

    // The parser resolves the rebased $refs inside the document.
    const byId = Object.fromEntries(
      parsed
        .messages()
        .all()
        .map((message) => [message.id(), message.payload()!]),
    );
    const line = byId.ordersIdMessage!.properties()!.lines!.items() as { required(): string[] | undefined };
    assert.deepEqual(line.required(), ["sku", "parts"]);
    assert.deepEqual(byId.customersIdMessage!.properties()!.tier!.enum(), ["gold", "silver"]);
  });

  test("an unreachable registry: the document still builds and says why each payload is missing", async () => {
    const { registry } = fakeRegistry({ down: true });
    const logged: string[] = [];
    const registrySchemas = await registrySchemasFor({ endpoints: all, registry, log: (line) => logged.push(line) });
    const doc = buildAsyncApiDocument(api, all, { gatewayUrl, registrySchemas });
    await assertValid(doc);
    const avro = doc.components.messages.ordersIdMessage as Json;
    assert.match(avro.payload.description, /could not be read \(SCHEMA_REGISTRY_URL .*ECONNREFUSED\)/);
    assert.match(avro.description, /reload the document when the registry answers/);
    assert.deepEqual(avro["x-sluice-registry-schema"], {
      subject: "orders-value",
      version: 2,
      error: "SCHEMA_REGISTRY_URL (http://127.0.0.1:1): ECONNREFUSED",
    });
    assert.equal(logged.length, 3);
    assert.match(logged[0]!, /subject "orders-value"/);
  });

  test("no registry configured, or a subject that is gone", async () => {
    const none = await registrySchemasFor({ endpoints: [avroEndpoint], registry: null });
    assert.match(none.get(avroEndpoint.id)!.error!, /no schema registry configured/);
    const gone = endpoint({
      path: "/gone/{id}",
      topic: "gone",
      payloadFormat: "avro",
      valueSubject: "gone-value",
      valueSubjectStrategy: "topic",
    });
    const { registry } = fakeRegistry();
    const schemas = await registrySchemasFor({ endpoints: [gone], registry, log: () => {} });
    await assertValid(buildAsyncApiDocument(api, [gone], { gatewayUrl, registrySchemas: schemas }));
    assert.match(schemas.get(gone.id)!.error!, /not found/);
  });

  test("a pinned version is fetched once; the latest is asked again after 30 s, a failure after 5 s", async () => {
    const { registry, asked } = fakeRegistry();
    const t0 = Date.now();
    await registrySchemasFor({ endpoints: all, registry, now: t0 });
    await registrySchemasFor({ endpoints: all, registry, now: t0 + 29_000 });
    assert.equal(asked.filter((a) => a === "orders-value/2").length, 1);
    assert.equal(asked.filter((a) => a === "payments-value/latest").length, 1);
    await registrySchemasFor({ endpoints: all, registry, now: t0 + LATEST_TTL_MS });
    assert.equal(asked.filter((a) => a === "payments-value/latest").length, 2);
    assert.equal(asked.filter((a) => a === "orders-value/2").length, 1);

    const away = fakeRegistry({ down: true });
    const log = () => {};
    await registrySchemasFor({ endpoints: [protobufEndpoint], registry: away.registry, log, now: t0 });
    await registrySchemasFor({ endpoints: [protobufEndpoint], registry: away.registry, log, now: t0 + 4_000 });
    assert.equal(away.asked.length, 1, "a failure is remembered briefly");
    await registrySchemasFor({ endpoints: [protobufEndpoint], registry: away.registry, log, now: t0 + 5_000 });
    assert.equal(away.asked.length, 2);
  });
});

describe("converted schemas are JSON Schema 2020-12 that accept the JSON the gateway serves", () => {
  // The examples of docs/payload-formats.md: the schema and the decoded JSON it documents.
  const docsAvro = {
    type: "record",
    name: "Order",
    namespace: "shop",
    fields: [
      { name: "id", type: "string" },
      { name: "total", type: { type: "bytes", logicalType: "decimal", precision: 9, scale: 2 } },
      { name: "created_at", type: { type: "long", logicalType: "timestamp-millis" } },
      { name: "note", type: ["null", "string"], default: null },
      {
        name: "payment",
        type: ["null", "string", { type: "record", name: "Card", fields: [{ name: "last4", type: "string" }] }],
        default: null,
      },
    ],
  };
  const docsProto = `syntax = "proto3";
import "google/protobuf/timestamp.proto";
message Order {
  string id = 1;
  int64 total_cents = 2;
  repeated Item items = 3;
  google.protobuf.Timestamp created_at = 4;
  message Item { string sku = 1; int32 qty = 2; }
}`;

  async function validator(schemaType: "AVRO" | "PROTOBUF", schema: string) {
    const { jsonSchema } = await registrySchemaToJsonSchema({ schemaType, schema, references: [] });
    const check = compileJsonSchema(jsonSchema);
    assert.ok(check.ok, check.ok ? "" : check.message);
    return (value: unknown) => (check.validate(value) ? "ok" : describeErrors(check.validate.errors));
  }

  test("Avro", async () => {
    const validate = await validator("AVRO", JSON.stringify(docsAvro));
    const record = {
      id: "o-17",
      total: "12.30",
      created_at: "2024-05-01T10:34:56.789Z",
      note: null,
      payment: { "shop.Card": { last4: "4242" } },
    };
    assert.equal(validate(record), "ok");
    assert.equal(validate({ ...record, payment: { string: "voucher-9" }, note: "door" }), "ok");
    assert.match(validate({ ...record, total: "12.3" }), /\/total must match pattern/);
    assert.match(validate({ ...record, payment: "voucher-9" }), /\/payment/, "the schema describes the canonical form");
    const { note: _note, ...withoutNote } = record;
    assert.match(validate(withoutNote), /must have required property 'note'/);
    assert.match(validate({ ...record, extra: 1 }), /must NOT have additional properties/);
  });

  test("Protobuf", async () => {
    const validate = await validator("PROTOBUF", docsProto);
    const message = { id: "o-17", totalCents: "1230", items: [{ sku: "a", qty: 2 }], createdAt: "2024-05-01T10:00:00.500Z" };
    assert.equal(validate(message), "ok");
    const { createdAt: _createdAt, ...unset } = message;
    assert.equal(validate(unset), "ok", "a message field is left out when unset");
    assert.match(validate({ ...message, totalCents: 1230 }), /\/totalCents must be string/);
    assert.match(validate({ ...message, items: [{ sku: "a", qty: 2, price: 1 }] }), /additional properties/);
  });
});

// A Protobuf subject named for a record (topic-record or record strategy)
// describes that message, the one the gateway publishes with, not the file's first.
test("a record-strategy Protobuf subject describes the message it is named for", async () => {
  const twoMessages = `syntax = "proto3"; package ship.v1; message Event { string name = 1; } message Shipment { string carrier = 1; int32 parcels = 2; }`;
  const registry: SchemaRegistry = {
    subjects: async () => [],
    schemaById: async () => {
      throw new Error("not used");
    },
    version: async (subject) => ({ subject, version: 1, id: 71, schemaType: "PROTOBUF", schema: twoMessages, references: [] }),
  };
  const byStrategy = endpoint({
    path: "/shipments/{id}",
    topic: "shipments",
    payloadFormat: "protobuf",
    valueSubject: "shipments-ship.v1.Shipment",
    valueSubjectStrategy: "topic-record",
    valueRecordName: "ship.v1.Shipment",
  });
  const byTopic = endpoint({
    path: "/events/{id}",
    topic: "events",
    payloadFormat: "protobuf",
    valueSubject: "events-value",
    valueSubjectStrategy: "topic",
  });
  const schemas = await registrySchemasFor({ endpoints: [byStrategy, byTopic], registry });
  const props = (id: string) => {
    const entry = schemas.get(id);
    if (!entry || entry.error !== undefined) return assert.fail(String(entry?.error));
    return JSON.stringify(entry.converted.jsonSchema);
  };
  assert.match(props(byStrategy.id), /"carrier"/);
  assert.doesNotMatch(props(byStrategy.id), /"name":\{"type"/);
  assert.match(props(byTopic.id), /"name"/, "the topic strategy describes the file's first message");
});
