// The AsyncAPI document of registry-backed endpoints against the real schema
// registry of the test stack (SCHEMA_REGISTRY_URL) and PostgreSQL (DATABASE_URL):
// schemas registered through the registry's own REST API (with references to
// other subjects), endpoints stored as the portal stores them, the document
// built by getApiDocument and checked with the official AsyncAPI parser.
// Each test registers its own subjects under unique names.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, describe, test } from "node:test";

import { createDb, endpoints, streamingApis, type Endpoint } from "@sluice/db";
import { RegistryClient } from "@sluice/schema-registry";

import { parseAsyncApi } from "../lib/asyncapi/validate-document";
import type { AuthorizedActor } from "../lib/auth/actor";
import { getApiDocument } from "../lib/domain/asyncapi/get-api-document";
import { closePortalRegistry } from "../lib/registry/registry";

const registryUrl = (() => {
  const url = process.env.SCHEMA_REGISTRY_URL;
  if (!url) throw new Error("SCHEMA_REGISTRY_URL is not set: run integration tests through ./sluice test");
  return url.replace(/\/+$/, "");
})();
const db = createDb({ max: 2 });
after(async () => {
  closePortalRegistry();
  await db.$client.end();
});
// getApiDocument lets any signed-in user read every API's docs; it does not look at the actor.
const actor = {} as AuthorizedActor;
const unique = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;

type Reference = { name: string; subject: string; version: number };

/** Registers a schema with the registry's REST API (not the portal's client); returns its id. */
async function register(subject: string, schema: string, schemaType?: "PROTOBUF" | "JSON", references: Reference[] = []): Promise<number> {
  const res = await fetch(`${registryUrl}/subjects/${encodeURIComponent(subject)}/versions`, {
    method: "POST",
    headers: { "content-type": "application/vnd.schemaregistry.v1+json" },
    body: JSON.stringify({ schema, ...(schemaType ? { schemaType } : {}), ...(references.length ? { references } : {}) }),
  });
  const body = (await res.json()) as { id?: number };
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.id!;
}

/** An API with registry endpoints, stored as the portal stores them. */
async function apiWith(
  rows: (Pick<Endpoint, "topic" | "payloadFormat" | "valueSubject" | "valueSchemaVersion"> &
    Partial<Pick<Endpoint, "keySubject" | "keySchemaVersion">>)[],
): Promise<string> {
  const [api] = await db
    .insert(streamingApis)
    .values({ name: unique("Registry docs"), version: "1.0.0" })
    .returning({ id: streamingApis.id });
  await db.insert(endpoints).values(
    rows.map((r) => ({
      apiId: api!.id,
      path: `/${r.topic}/{id}`,
      topic: r.topic,
      keyParam: "id",
      operations: ["subscribe", "publish"],
      payloadFormat: r.payloadFormat,
      valueSubject: r.valueSubject,
      valueSubjectStrategy: r.valueSubject ? ("topic" as const) : null,
      valueSchemaVersion: r.valueSchemaVersion,
      keySubject: r.keySubject ?? null,
      keySubjectStrategy: r.keySubject ? ("topic" as const) : null,
      keySchemaVersion: r.keySchemaVersion ?? null,
    })),
  );
  return api!.id;
}

// biome-ignore lint/suspicious/noExplicitAny: the tests walk the document freely
type Json = Record<string, any>;

async function assertValid(doc: unknown) {
  const { document, errors } = await parseAsyncApi(JSON.parse(JSON.stringify(doc)));
  assert.deepEqual(errors, []);
  assert.ok(document);
}

describe("the AsyncAPI document with the real registry", () => {
  test("Avro, Protobuf and JSON Schema subjects with references: converted payloads, original schemas, valid", async () => {
    const orders = unique("orders");
    const payments = unique("payments");
    const customers = unique("customers");

    // Avro: a record that uses a named type of another subject, two versions, the first pinned.
    const moneySubject = unique("money");
    await register(
      moneySubject,
      JSON.stringify({
        type: "record",
        name: "Money",
        namespace: "common",
        fields: [
          { name: "cents", type: "long" },
          { name: "currency", type: "string" },
        ],
      }),
    );
    const order = (extra: unknown[]) =>
      JSON.stringify({
        type: "record",
        name: "Order",
        namespace: "shop",
        fields: [
          { name: "id", type: "string" },
          { name: "total", type: "common.Money" },
          { name: "at", type: { type: "long", logicalType: "timestamp-millis" } },
          ...extra,
        ],
      });
    const moneyRef = [{ name: "common.Money", subject: moneySubject, version: 1 }];
    const v1 = await register(`${orders}-value`, order([]), undefined, moneyRef);
    await register(`${orders}-value`, order([{ name: "note", type: ["null", "string"], default: null }]), undefined, moneyRef);

    // Protobuf: an import of another subject and a well-known type.
    const commonProto = unique("common-proto");
    await register(commonProto, `syntax = "proto3"; package common; message Address { string city = 1; }`, "PROTOBUF");
    const paymentId = await register(
      `${payments}-value`,
      `syntax = "proto3";
package pay;
import "google/protobuf/timestamp.proto";
import "common/address.proto";
message Payment { int64 amount_cents = 1; google.protobuf.Timestamp paid_at = 2; common.Address billing = 3; }`,
      "PROTOBUF",
      [{ name: "common/address.proto", subject: commonProto, version: 1 }],
    );

    // JSON Schema: a $ref to another subject.
    const addressJson = unique("address-json");
    await register(addressJson, JSON.stringify({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }), "JSON");
    await register(
      `${customers}-value`,
      JSON.stringify({
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: { name: { type: "string" }, home: { $ref: "address.json" } },
      }),
      "JSON",
      [{ name: "address.json", subject: addressJson, version: 1 }],
    );

    const apiId = await apiWith([
      { topic: orders, payloadFormat: "avro", valueSubject: `${orders}-value`, valueSchemaVersion: 1 },
      { topic: payments, payloadFormat: "protobuf", valueSubject: `${payments}-value`, valueSchemaVersion: null },
      { topic: customers, payloadFormat: "json-schema", valueSubject: `${customers}-value`, valueSchemaVersion: null },
    ]);
    const { document } = await getApiDocument({ db, actor, apiId, gatewayUrl: "http://127.0.0.1:8080" });
    await assertValid(document);
    const messages = Object.values(document.components.messages) as Json[];
    const of = (topic: string) => messages.find((m) => m.title === `/${topic}/{id} payload`)!;

    const avro = of(orders);
    assert.deepEqual(Object.keys(avro.payload.schema.properties), ["id", "total", "at"], "the pinned version 1, not the latest");
    assert.match(avro.payload.schema.properties.total.$ref, /\/payload\/schema\/\$defs\/common\.Money$/);
    assert.equal(avro.payload.schema.$defs["common.Money"].properties.cents.format, "int64");
    assert.deepEqual(
      [avro["x-sluice-registry-schema"].subject, avro["x-sluice-registry-schema"].version, avro["x-sluice-registry-schema"].id],
      [`${orders}-value`, 1, v1],
    );
    assert.deepEqual(avro["x-sluice-registry-schema"].references, moneyRef);

    const proto = of(payments);
    const payment = proto.payload.schema.properties;
    assert.deepEqual(Object.keys(payment), ["amountCents", "paidAt", "billing"]);
    assert.equal(payment.amountCents.type, "string");
    assert.equal(payment.paidAt.format, "date-time");
    assert.match(payment.billing.$ref, /\$defs\/common\.Address$/);
    assert.equal(proto["x-sluice-registry-schema"].id, paymentId);
    assert.equal(proto["x-sluice-registry-schema"].schemaFormat, "application/vnd.google.protobuf;version=3");

    const json = of(customers);
    assert.equal(json.payload.schemaFormat, "application/schema+json;version=draft-07");
    assert.match(json.payload.schema.properties.home.$ref, /\$defs\/address\.json$/);
    assert.deepEqual(json.payload.schema.$defs["address.json"].required, ["city"]);
  });

  test("registry-encoded keys: the Kafka binding's key is the converted key schema (references too), the document valid", async () => {
    const orders = unique("orders");
    const carts = unique("carts");
    await register(
      `${orders}-value`,
      JSON.stringify({ type: "record", name: "Order", namespace: "shop", fields: [{ name: "id", type: "string" }] }),
    );
    await register(`${orders}-key`, '"string"');
    // A Protobuf record key on a json topic, importing a message of another subject.
    const shopProto = unique("shop-proto");
    await register(shopProto, `syntax = "proto3"; package common; message Shop { string code = 1; }`, "PROTOBUF");
    const cartKeyId = await register(
      `${carts}-key`,
      `syntax = "proto3";\npackage cart;\nimport "common/shop.proto";\nmessage CartKey { common.Shop shop = 1; int64 id = 2; }`,
      "PROTOBUF",
      [{ name: "common/shop.proto", subject: shopProto, version: 1 }],
    );
    const apiId = await apiWith([
      {
        topic: orders,
        payloadFormat: "avro",
        valueSubject: `${orders}-value`,
        valueSchemaVersion: null,
        keySubject: `${orders}-key`,
        keySchemaVersion: 1,
      },
      { topic: carts, payloadFormat: "json", valueSubject: null, valueSchemaVersion: null, keySubject: `${carts}-key` },
    ]);
    const { document } = await getApiDocument({ db, actor, apiId, gatewayUrl: "http://127.0.0.1:8080" });
    await assertValid(document);
    const messages = Object.values(document.components.messages) as Json[];
    const of = (topic: string) => messages.find((m) => m.title === `/${topic}/{id} payload`)!;

    const order = of(orders).bindings.kafka;
    assert.equal(order.key.type, "string");
    assert.deepEqual(
      [order.key["x-sluice-registry-schema"].subject, order.key["x-sluice-registry-schema"].pinned],
      [`${orders}-key`, true],
    );
    assert.equal(order.schemaIdLocation, "payload");

    const cart = of(carts);
    assert.equal(cart["x-sluice-registry-schema"], undefined, "json values");
    assert.deepEqual(Object.keys(cart.bindings.kafka.key.properties), ["shop", "id"]);
    assert.equal(cart.bindings.kafka.key.properties.id.type, "string", "int64 as the decoder writes it");
    assert.match(cart.bindings.kafka.key.properties.shop.$ref, /\/bindings\/kafka\/key\/\$defs\/common\.Shop$/);
    assert.deepEqual(
      [cart.bindings.kafka.key["x-sluice-registry-schema"].id, cart.bindings.kafka.key["x-sluice-registry-schema"].schemaType],
      [cartKeyId, "PROTOBUF"],
    );
    assert.match(cart.description, new RegExp(`keys are encoded with registry subject \`${carts}-key\``));
  });

  test("a registry that does not answer: the document builds, the payload says why", async () => {
    const topic = unique("late");
    const apiId = await apiWith([{ topic, payloadFormat: "avro", valueSubject: `${topic}-value`, valueSchemaVersion: null }]);
    const away = new RegistryClient({ url: "http://127.0.0.1:9", auth: { kind: "none" } }, { timeoutMs: 1000 });
    try {
      const { document } = await getApiDocument({ db, actor, apiId, gatewayUrl: "http://127.0.0.1:8080", registry: away });
      await assertValid(document);
      const message = Object.values(document.components.messages)[0] as Json;
      assert.match(message.payload.description, /could not be read \(SCHEMA_REGISTRY_URL \(http:\/\/127\.0\.0\.1:9\)/);
      assert.equal(message["x-sluice-registry-schema"].subject, `${topic}-value`);
    } finally {
      away.close();
    }
  });

  test("a subject that does not exist (yet): described as missing, the document still valid", async () => {
    const topic = unique("nosubject");
    const apiId = await apiWith([{ topic, payloadFormat: "protobuf", valueSubject: `${topic}-value`, valueSchemaVersion: null }]);
    const { document } = await getApiDocument({ db, actor, apiId, gatewayUrl: "http://127.0.0.1:8080" });
    await assertValid(document);
    const message = Object.values(document.components.messages)[0] as Json;
    assert.match(message["x-sluice-registry-schema"].error, /not found/);
  });
});
