import assert from "node:assert/strict";
import { describe, test } from "node:test";

import type { RegisteredSchema, SchemaReference } from "./client.ts";
import { AVRO_SCHEMA_FORMAT, JSON_SCHEMA_2020_12_FORMAT, registrySchemaToJsonSchema } from "./to-json-schema.ts";

// biome-ignore lint/suspicious/noExplicitAny: the tests walk the converted schemas freely
type Json = Record<string, any>;
const avro = (schema: unknown, references: SchemaReference[] = []) =>
  ({ schemaType: "AVRO", schema: JSON.stringify(schema), references }) as const;

// The example of docs/payload-formats.md, with a nested array of a recursive record.
const order = {
  type: "record",
  name: "Order",
  namespace: "shop",
  doc: "An order as the shop writes it",
  fields: [
    { name: "id", type: "string" },
    { name: "total", type: { type: "bytes", logicalType: "decimal", precision: 9, scale: 2 } },
    { name: "created_at", type: { type: "long", logicalType: "timestamp-millis" } },
    { name: "day", type: { type: "int", logicalType: "date" } },
    { name: "at", type: { type: "long", logicalType: "local-timestamp-micros" } },
    { name: "ref", type: { type: "string", logicalType: "uuid" } },
    { name: "note", type: ["null", "string"], default: null },
    {
      name: "payment",
      type: ["null", "string", { type: "record", name: "Card", fields: [{ name: "last4", type: "string" }] }],
      default: null,
    },
    { name: "status", type: { type: "enum", name: "Status", symbols: ["NEW", "PAID"] }, default: "NEW" },
    { name: "tags", type: { type: "map", values: "long" } },
    { name: "digest", type: { type: "fixed", name: "Md5", size: 16 } },
    { name: "raw", type: "bytes" },
    { name: "score", type: "double" },
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

describe("Avro to JSON Schema", () => {
  test("records, logical types, unions, enums, maps, fixed and bytes follow docs/payload-formats.md", async () => {
    const { jsonSchema, jsonSchemaFormat, originalFormat } = await registrySchemaToJsonSchema(avro(order));
    assert.equal(jsonSchemaFormat, JSON_SCHEMA_2020_12_FORMAT);
    assert.equal(originalFormat, AVRO_SCHEMA_FORMAT);
    const s = jsonSchema as Json;
    assert.equal(s.type, "object");
    assert.equal(s.title, "Order");
    assert.equal(s.description, "An order as the shop writes it");
    assert.equal(s.additionalProperties, false);
    assert.deepEqual(
      s.required,
      order.fields.map((f) => f.name),
      "every field is in every decoded record",
    );
    const p = s.properties;
    assert.deepEqual(p.id, { type: "string" });
    assert.equal(p.total.type, "string");
    assert.match("12.30", new RegExp(p.total.pattern));
    assert.doesNotMatch("12.3", new RegExp(p.total.pattern));
    assert.deepEqual([p.created_at.type, p.created_at.format], ["string", "date-time"]);
    assert.deepEqual([p.day.type, p.day.format], ["string", "date"]);
    assert.match("2024-05-01T12:34:56.000789", new RegExp(p.at.pattern));
    assert.equal(p.at.format, undefined, "no time zone: not an RFC 3339 date-time");
    assert.equal(p.ref.format, "uuid");
    assert.deepEqual(p.note, { type: ["string", "null"], default: null });
    assert.deepEqual(p.payment.oneOf[0], { type: "null" });
    assert.deepEqual(p.payment.oneOf[1], {
      type: "object",
      properties: { string: { type: "string" } },
      required: ["string"],
      additionalProperties: false,
    });
    assert.deepEqual(p.payment.oneOf[2].required, ["shop.Card"], "a named branch is named by its full name");
    assert.deepEqual(p.status, { title: "Status", type: "string", enum: ["NEW", "PAID"], default: "NEW" });
    assert.deepEqual(p.tags, { type: "object", additionalProperties: { type: "integer", format: "int64" } });
    assert.deepEqual(
      [p.digest.contentEncoding, p.digest.minLength, p.digest.maxLength, p.digest.examples],
      ["base64", 24, 24, ["AAAAAAAAAAAAAAAAAAAAAA=="]],
    );
    assert.deepEqual(p.raw, { type: "string", contentEncoding: "base64" });
    assert.deepEqual(p.score.anyOf[1].enum, ["NaN", "Infinity", "-Infinity"]);
    // The recursive Line lives in $defs and refers to itself; Card, used once, stays inline.
    assert.deepEqual(p.lines, { type: "array", items: { $ref: "#/$defs/shop.Line" } });
    assert.deepEqual(Object.keys(s.$defs), ["shop.Line"]);
    assert.deepEqual(s.$defs["shop.Line"].properties.parts.items, { $ref: "#/$defs/shop.Line" });
  });

  test("a record that contains itself is referenced from the root", async () => {
    const tree = {
      type: "record",
      name: "Node",
      fields: [
        { name: "children", type: { type: "array", items: "Node" } },
        { name: "up", type: ["null", "Node"] },
      ],
    };
    const s = (await registrySchemaToJsonSchema(avro(tree))).jsonSchema as Json;
    assert.equal(s.$ref, "#/$defs/Node");
    assert.deepEqual(s.$defs.Node.properties.up, { oneOf: [{ $ref: "#/$defs/Node" }, { type: "null" }] });
  });

  test("named types from referenced subjects, dependencies first", async () => {
    const money = {
      type: "record",
      name: "Money",
      namespace: "common",
      fields: [
        { name: "cents", type: "long" },
        { name: "currency", type: "Currency" },
      ],
    };
    const currency = { type: "enum", name: "Currency", namespace: "common", symbols: ["EUR", "USD"] };
    const invoice = { type: "record", name: "Invoice", fields: [{ name: "amount", type: "common.Money" }] };
    const registry: Record<string, RegisteredSchema> = {
      "money/1": {
        id: 2,
        schemaType: "AVRO",
        schema: JSON.stringify(money),
        references: [{ name: "common.Currency", subject: "currency", version: 1 }],
      },
      "currency/1": { id: 1, schemaType: "AVRO", schema: JSON.stringify(currency), references: [] },
    };
    const fetched: string[] = [];
    const s = (
      await registrySchemaToJsonSchema(avro(invoice, [{ name: "common.Money", subject: "money", version: 1 }]), {
        fetchReference: async (ref) => {
          fetched.push(ref.subject);
          return registry[`${ref.subject}/${ref.version}`]!;
        },
      })
    ).jsonSchema as Json;
    assert.deepEqual(fetched, ["money", "currency"]);
    assert.deepEqual(s.properties.amount, { $ref: "#/$defs/common.Money" });
    assert.deepEqual(s.$defs["common.Money"].properties.currency, { $ref: "#/$defs/common.Currency" });
    assert.deepEqual(s.$defs["common.Currency"].enum, ["EUR", "USD"]);
  });

  test("a name without a namespace inside a namespaced record may mean a type of the null namespace", async () => {
    const point = { type: "record", name: "Point", fields: [{ name: "x", type: "int" }] };
    const shape = {
      type: "record",
      name: "Shape",
      namespace: "geo",
      fields: [{ name: "corners", type: { type: "array", items: "Point" } }],
    };
    const s = (
      await registrySchemaToJsonSchema(avro(shape, [{ name: "Point", subject: "point", version: 1 }]), {
        fetchReference: async () => ({ id: 1, schemaType: "AVRO", schema: JSON.stringify(point), references: [] }),
      })
    ).jsonSchema as Json;
    assert.deepEqual(s.properties.corners.items, { $ref: "#/$defs/Point" });
    assert.deepEqual(Object.keys(s.$defs), ["Point"]);
  });

  test("an undefined name is an error that names it", async () => {
    await assert.rejects(
      registrySchemaToJsonSchema(avro({ type: "record", name: "A", fields: [{ name: "b", type: "B" }] })),
      /the type B is not defined/,
    );
  });
});

const orderProto = `syntax = "proto3";
package shop.v1;

import "google/protobuf/timestamp.proto";
import "google/protobuf/duration.proto";
import "google/protobuf/struct.proto";
import "google/protobuf/wrappers.proto";
import "common/money.proto";

// An order as the shop writes it.
message Order {
  string id = 1;
  int64 total_cents = 2;
  repeated Item items = 3;
  google.protobuf.Timestamp created_at = 4;
  optional string note = 5;
  map<string, int32> counts = 6;
  oneof payment {
    string card = 7;
    string voucher = 8;
  }
  Status status = 9;
  google.protobuf.Int64Value points = 10;
  bytes blob = 11;
  double score = 12;
  uint32 qty = 13;
  google.protobuf.Duration wait = 14;
  google.protobuf.Struct extra = 15;
  common.Money price = 16;
  string legacy_id = 17 [json_name = "legacy"];

  message Item { string sku = 1; int32 qty = 2; repeated Item parts = 3; }
  enum Status { NEW = 0; PAID = 1; }
}

message Refund { string order_id = 1; }
`;
const moneyProto = `syntax = "proto3"; package common; message Money { sint64 units = 1; string currency = 2; }`;

describe("Protobuf to JSON Schema", () => {
  const convert = (message?: string) =>
    registrySchemaToJsonSchema(
      { schemaType: "PROTOBUF", schema: orderProto, references: [{ name: "common/money.proto", subject: "money", version: 1 }] },
      { fetchReference: async () => ({ id: 1, schemaType: "PROTOBUF", schema: moneyProto, references: [] }), message },
    );

  test("the first message by protobuf's JSON mapping: lowerCamelCase, int64 as strings, WKT, enums, oneof, maps", async () => {
    const { jsonSchema, originalFormat } = await convert();
    assert.equal(originalFormat, "application/vnd.google.protobuf;version=3");
    const s = jsonSchema as Json;
    assert.equal(s.title, "Order");
    assert.equal(s.description, "An order as the shop writes it.");
    const p = s.properties;
    assert.deepEqual(Object.keys(p), [
      "id",
      "totalCents",
      "items",
      "createdAt",
      "note",
      "counts",
      "card",
      "voucher",
      "status",
      "points",
      "blob",
      "score",
      "qty",
      "wait",
      "extra",
      "price",
      "legacy",
    ]);
    // Fields without presence are always there (EmitDefaultValues); optional, message and oneof fields only when set.
    assert.deepEqual(s.required, ["id", "totalCents", "items", "counts", "status", "blob", "score", "qty", "legacy"]);
    assert.equal(p.totalCents.type, "string");
    assert.match("-9007199254740993", new RegExp(p.totalCents.pattern));
    assert.deepEqual(p.items, { type: "array", items: { $ref: "#/$defs/shop.v1.Order.Item" } });
    assert.deepEqual(p.createdAt, { type: "string", format: "date-time" });
    assert.equal(p.counts.type, "object");
    assert.equal(p.counts.additionalProperties.type, "integer");
    assert.deepEqual(s.dependentSchemas.card, { not: { anyOf: [{ required: ["voucher"] }] } }, "at most one member of a oneof");
    assert.deepEqual(p.status, { title: "Status", type: "string", enum: ["NEW", "PAID"] });
    assert.equal(p.points.type, "string", "Int64Value is its bare value, a string");
    assert.deepEqual(p.blob, { type: "string", contentEncoding: "base64" });
    assert.ok(p.score.anyOf);
    assert.deepEqual([p.qty.minimum, p.qty.maximum], [0, 4294967295]);
    assert.match("1.500s", new RegExp(p.wait.pattern));
    assert.deepEqual(p.extra, { type: "object" });
    assert.deepEqual(p.price, { $ref: "#/$defs/common.Money" });
    assert.equal(s.$defs["common.Money"].properties.units.type, "string");
    assert.deepEqual(s.$defs["shop.v1.Order.Item"].properties.parts.items, { $ref: "#/$defs/shop.v1.Order.Item" });
  });

  test("another message of the file by its full name; an unknown one is an error", async () => {
    const s = (await convert("shop.v1.Refund")).jsonSchema as Json;
    assert.deepEqual(Object.keys(s.properties), ["orderId"]);
    await assert.rejects(convert("shop.v1.Nope"), /no message shop\.v1\.Nope/);
  });

  test("proto2: required and optional fields have presence", async () => {
    const { jsonSchema, originalFormat } = await registrySchemaToJsonSchema({
      schemaType: "PROTOBUF",
      schema: `syntax = "proto2"; message A { required string a = 1; optional int32 b = 2; repeated string c = 3; }`,
      references: [],
    });
    assert.equal(originalFormat, "application/vnd.google.protobuf;version=2");
    assert.deepEqual((jsonSchema as Json).required, ["c"]);
  });

  test("an import that is neither a reference nor well known is an error", async () => {
    await assert.rejects(
      registrySchemaToJsonSchema({
        schemaType: "PROTOBUF",
        schema: `syntax = "proto3"; import "x.proto"; message A { string a = 1; }`,
        references: [],
      }),
      /the import "x.proto"/,
    );
  });
});

describe("JSON Schema", () => {
  test("the schema itself, its registry references embedded under $defs", async () => {
    const address = {
      $schema: "http://json-schema.org/draft-07/schema#",
      $id: "https://x/address",
      type: "object",
      properties: { city: { $ref: "#/definitions/city" } },
      definitions: { city: { type: "string" } },
    };
    const customer = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: {
        home: { $ref: "address.json" },
        city: { $ref: "address.json#/definitions/city" },
        nick: { $ref: "#/definitions/nick" },
        tag: { const: { $ref: "address.json" } },
      },
      definitions: { nick: { type: "string" } },
    };
    const { jsonSchema, jsonSchemaFormat, originalFormat } = await registrySchemaToJsonSchema(
      { schemaType: "JSON", schema: JSON.stringify(customer), references: [{ name: "address.json", subject: "address", version: 3 }] },
      { fetchReference: async () => ({ id: 9, schemaType: "JSON", schema: JSON.stringify(address), references: [] }) },
    );
    assert.equal(jsonSchemaFormat, "application/schema+json;version=draft-07");
    assert.equal(originalFormat, jsonSchemaFormat);
    const s = jsonSchema as Json;
    assert.deepEqual(s.properties.home, { $ref: "#/$defs/address.json" });
    assert.deepEqual(s.properties.city, { $ref: "#/$defs/address.json/definitions/city" });
    assert.deepEqual(s.properties.nick, { $ref: "#/definitions/nick" });
    assert.deepEqual(s.properties.tag, { const: { $ref: "address.json" } }, "data is not rewritten");
    assert.deepEqual(s.$defs["address.json"].properties.city, { $ref: "#/$defs/address.json/definitions/city" });
    assert.equal(s.$defs["address.json"].$id, undefined);
  });

  test("without $schema it is draft 2020-12, as the gateway reads it", async () => {
    const { jsonSchema, jsonSchemaFormat } = await registrySchemaToJsonSchema({
      schemaType: "JSON",
      schema: '{"type":"string"}',
      references: [],
    });
    assert.deepEqual(jsonSchema, { type: "string" });
    assert.equal(jsonSchemaFormat, JSON_SCHEMA_2020_12_FORMAT);
  });
});
