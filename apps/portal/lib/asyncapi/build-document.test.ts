import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { buildAsyncApiDocument, JSON_SCHEMA_2020_12_FORMAT, type ApiForDocument, type EndpointForDocument } from "./build-document";
import { parseAsyncApi } from "./validate-document";

const api: ApiForDocument = {
  id: "6f1c2d3e-0000-4000-8000-000000000001",
  name: "Market data",
  version: "1.2.0",
  description: "Prices and orders.",
  tags: ["finance", "realtime", "finance"],
};

let n = 0;
function endpoint(overrides: Partial<EndpointForDocument> & Pick<EndpointForDocument, "path" | "topic">): EndpointForDocument {
  n += 1;
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    key: null,
    keyParam: null,
    operations: ["subscribe"],
    payloadFormat: "json",
    jsonSchema: null,
    description: "",
    examples: [],
    ...overrides,
  };
}

const priceSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  required: ["symbol", "price"],
  properties: {
    symbol: { $ref: "#/$defs/symbol" },
    price: { type: "number", minimum: 0 },
    range: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }] },
    unit: { enum: ["USD", "EUR"], default: "USD" },
  },
  $defs: { symbol: { type: "string", pattern: "^[A-Z.]+$" } },
};

const fixtures = {
  exact: endpoint({
    path: "/vehicles/1/speed",
    topic: "vehicles",
    key: "1/speed",
    operations: ["subscribe", "publish"],
    payloadFormat: "json",
  }),
  param: endpoint({
    path: "/prices/{symbol}",
    topic: "prices",
    keyParam: "symbol",
    jsonSchema: priceSchema,
    examples: [
      { symbol: "AAPL", price: 411.2 },
      { symbol: "BRK.B", price: 1 },
    ],
    description: "Last trade price per symbol.",
  }),
  text: endpoint({ path: "/logs/app", topic: "logs", key: "app", payloadFormat: "text", examples: ["started"] }),
  bytes: endpoint({
    path: "/frames/cam1",
    topic: "frames",
    key: "cam1",
    payloadFormat: "bytes",
    operations: ["publish", "subscribe"],
    examples: ["AAEC"],
  }),
  publishOnly: endpoint({
    path: "/orders/eu",
    topic: "orders",
    key: "eu",
    operations: ["publish"],
    jsonSchema: { type: "object", properties: { qty: { type: "integer", minimum: 1 } }, required: ["qty"] },
  }),
  subscribeOnly: endpoint({ path: "/news/caf%C3%A9", topic: "news", key: "café", operations: ["subscribe"], payloadFormat: "text" }),
};

const gatewayUrl = "https://gw.example.com";

async function assertValid(doc: unknown) {
  const { document, errors } = await parseAsyncApi(JSON.parse(JSON.stringify(doc)));
  assert.deepEqual(errors, []);
  assert.ok(document, "the parser returned no document");
  return document;
}

describe("buildAsyncApiDocument", () => {
  test("each kind of endpoint on its own is a valid AsyncAPI 3.0.0 document", async () => {
    for (const [name, e] of Object.entries(fixtures)) {
      const doc = buildAsyncApiDocument(api, [e], { gatewayUrl });
      const parsed = await assertValid(doc);
      assert.equal(parsed.version(), "3.0.0", name);
      assert.equal(parsed.channels().length, 1, name);
    }
  });

  test("all endpoints together: one channel per endpoint, operations per allowed operation", async () => {
    const doc = buildAsyncApiDocument(api, Object.values(fixtures), { gatewayUrl });
    const parsed = await assertValid(doc);
    assert.deepEqual(
      parsed
        .channels()
        .all()
        .map((c) => c.address())
        .sort(),
      Object.values(fixtures)
        .map((e) => e.path)
        .sort(),
    );
    assert.deepEqual(Object.keys(doc.operations).sort(), [
      "publishFramesCam1",
      "publishOrdersEu",
      "publishVehicles1Speed",
      "subscribeFramesCam1",
      "subscribeLogsApp",
      "subscribeNewsCaf",
      "subscribePricesSymbol",
      "subscribeVehicles1Speed",
    ]);
    for (const op of parsed.operations().all()) {
      const address = op.channels().all()[0]!.address();
      const e = Object.values(fixtures).find((f) => f.path === address)!;
      assert.ok(e.operations.includes(op.action() === "receive" ? "subscribe" : "publish"), `${op.id()} on ${address}`);
      assert.equal(op.messages().length, 1);
      assert.deepEqual(
        op.security().map((s) => s.all().map((r) => r.scheme()?.type())),
        [["http"]],
      );
    }
  });

  test("info, servers and the JWT security scheme", async () => {
    const doc = buildAsyncApiDocument(api, [fixtures.exact], { gatewayUrl: "https://gw.example.com/streaming/" });
    assert.equal(doc.info.title, "Market data");
    assert.equal(doc.info.version, "1.2.0");
    assert.deepEqual(doc.info.tags, [{ name: "finance" }, { name: "realtime" }]);
    assert.match(doc.info.description, /^Prices and orders\./);
    assert.match(doc.info.description, /wss:\/\/gw\.example\.com\/streaming\/ws/);
    assert.match(doc.info.description, /sluice\.v1/);
    assert.deepEqual(Object.fromEntries(Object.entries(doc.servers).map(([id, s]) => [id, [s.protocol, s.host, s.pathname]])), {
      websocket: ["wss", "gw.example.com", "/streaming/ws"],
      sse: ["https", "gw.example.com", "/streaming/sse"],
      httpPublish: ["https", "gw.example.com", "/streaming/pub"],
    });
    const plain = buildAsyncApiDocument(api, [], { gatewayUrl: "http://127.0.0.1:8080" });
    assert.deepEqual(
      [plain.servers.websocket!.protocol, plain.servers.websocket!.host, plain.servers.websocket!.pathname],
      ["ws", "127.0.0.1:8080", "/ws"],
    );
    assert.equal(plain.servers.sse!.protocol, "http");
    // Several gateway nodes (SLUICE_GATEWAY_PUBLIC_URL with commas): one set of servers per node, every channel on all.
    const fleet = buildAsyncApiDocument(api, [fixtures.exact], { gatewayUrl: "https://a.example.com, https://b.example.com:8443" });
    assert.deepEqual(Object.keys(fleet.servers), ["websocket", "sse", "httpPublish", "websocket2", "sse2", "httpPublish2"]);
    assert.equal(fleet.servers.websocket2!.host, "b.example.com:8443");
    assert.match(fleet.info.description, /wss:\/\/a\.example\.com\/ws/);
    const channel = Object.values(fleet.channels)[0]!;
    assert.deepEqual(
      (channel.servers as { $ref: string }[]).map((r) => r.$ref.replace("#/servers/", "")),
      ["websocket", "sse", "httpPublish", "websocket2", "sse2", "httpPublish2"],
    );
    await assertValid(fleet);
    const scheme = doc.components.securitySchemes.sluiceToken!;
    assert.deepEqual([scheme.type, scheme.scheme, scheme.bearerFormat], ["http", "bearer", "JWT"]);
    assert.match(String(scheme.description), /permissions/);
    await assertValid(plain);
  });

  test("a {param} endpoint declares its parameter; an exact one has none", async () => {
    const doc = buildAsyncApiDocument(api, [fixtures.param, fixtures.exact], { gatewayUrl });
    const parsed = await assertValid(doc);
    const param = parsed
      .channels()
      .all()
      .find((c) => c.address() === "/prices/{symbol}")!;
    assert.deepEqual(
      param
        .parameters()
        .all()
        .map((p) => p.id()),
      ["symbol"],
    );
    const exact = parsed
      .channels()
      .all()
      .find((c) => c.address() === "/vehicles/1/speed")!;
    assert.equal(exact.parameters().length, 0);
    assert.equal(doc.channels.pricesSymbol!["x-sluice-endpoint-id"], fixtures.param.id);
    assert.equal(doc.channels.pricesSymbol!.description, "Last trade price per symbol.");
  });

  test("JSON Schema 2020-12 travels as-is under its own schemaFormat, local $refs rebased", async () => {
    const doc = buildAsyncApiDocument(api, [fixtures.param], { gatewayUrl });
    const message = doc.components.messages.pricesSymbolMessage!;
    const payload = message.payload as { schemaFormat: string; schema: typeof priceSchema };
    assert.equal(payload.schemaFormat, JSON_SCHEMA_2020_12_FORMAT);
    assert.deepEqual(payload.schema.properties.symbol, { $ref: "#/components/messages/pricesSymbolMessage/payload/schema/$defs/symbol" });
    assert.deepEqual(payload.schema.properties.range, priceSchema.properties.range);
    assert.deepEqual(payload.schema.properties.unit, priceSchema.properties.unit);
    assert.equal(message.contentType, "application/json");

    const parsed = await assertValid(doc);
    const schema = parsed.messages().all()[0]!.payload()!;
    assert.equal(schema.schemaFormat(), JSON_SCHEMA_2020_12_FORMAT);
    assert.deepEqual(schema.required(), ["symbol", "price"]);
    assert.equal(schema.properties()!.symbol!.pattern(), "^[A-Z.]+$", "the $ref resolves inside the document");
  });

  test("payloads without a schema: open JSON, text, base64 bytes", async () => {
    const doc = buildAsyncApiDocument(api, [fixtures.exact, fixtures.text, fixtures.bytes], { gatewayUrl });
    await assertValid(doc);
    const m = doc.components.messages;
    assert.deepEqual(Object.keys(m.vehicles1SpeedMessage!.payload as object), ["description"]);
    assert.equal(m.vehicles1SpeedMessage!.contentType, "application/json");
    assert.equal((m.logsAppMessage!.payload as { type: string }).type, "string");
    assert.equal(m.logsAppMessage!.contentType, "text/plain");
    assert.deepEqual(
      [
        (m.framesCam1Message!.payload as { type: string }).type,
        (m.framesCam1Message!.payload as { contentEncoding: string }).contentEncoding,
      ],
      ["string", "base64"],
    );
    assert.equal(m.framesCam1Message!.contentType, "application/octet-stream");
  });

  test("publish-only and subscribe-only endpoints get only their operation and servers", async () => {
    const doc = buildAsyncApiDocument(api, [fixtures.publishOnly, fixtures.subscribeOnly], { gatewayUrl });
    await assertValid(doc);
    assert.deepEqual(
      Object.entries(doc.operations)
        .map(([id, o]) => [id, o.action])
        .sort(),
      [
        ["publishOrdersEu", "send"],
        ["subscribeNewsCaf", "receive"],
      ],
    );
    const servers = (id: string) => (doc.channels[id]!.servers as { $ref: string }[]).map((r) => r.$ref);
    assert.deepEqual(servers("ordersEu"), ["#/servers/websocket", "#/servers/httpPublish"]);
    assert.deepEqual(servers("newsCaf"), ["#/servers/websocket", "#/servers/sse"]);
    // The message texts offer only what the endpoint allows.
    const text = (id: string) => JSON.stringify(doc.components.messages[id]);
    const [subscribeOnlyMessage, publishOnlyMessage] = ["newsCaf", "ordersEu"].map(
      (channel) => Object.values(doc.channels[channel]!.messages)[0]!.$ref.split("/").pop()!,
    );
    assert.doesNotMatch(text(subscribeOnlyMessage!), /publish` frame|When publishing/);
    assert.match(text(subscribeOnlyMessage!), /subscribe-only/);
    assert.doesNotMatch(text(publishOnlyMessage!), /`message` frame/);
  });

  test("examples (payload values) become named message examples", async () => {
    const doc = buildAsyncApiDocument(api, [fixtures.param, fixtures.text, fixtures.exact], { gatewayUrl });
    const parsed = await assertValid(doc);
    const byName = Object.fromEntries(
      parsed
        .messages()
        .all()
        .map((m) => [
          m.id(),
          m
            .examples()
            .all()
            .map((e) => e.payload()),
        ]),
    );
    assert.deepEqual(byName.pricesSymbolMessage, fixtures.param.examples);
    assert.deepEqual(byName.logsAppMessage, ["started"]);
    assert.deepEqual(byName.vehicles1SpeedMessage, []);
  });

  test("ids are stable and colliding paths are told apart by endpoint id", () => {
    const a = endpoint({ id: "1a2b3c4d-0000-4000-8000-000000000000", path: "/a/b-c", topic: "a", key: "b-c" });
    const b = endpoint({ id: "9f8e7d6c-0000-4000-8000-000000000000", path: "/a/b_c", topic: "a", key: "b_c" });
    const one = buildAsyncApiDocument(api, [a, b], { gatewayUrl });
    const two = buildAsyncApiDocument(api, [b, a], { gatewayUrl });
    assert.deepEqual(one, two, "input order does not matter");
    assert.deepEqual(Object.keys(one.channels).sort(), ["aBC_1a2b3c4d", "aBC_9f8e7d6c"]);
  });

  test("the validation really fails on a broken document", async () => {
    const doc = buildAsyncApiDocument(api, [fixtures.param], { gatewayUrl });
    doc.channels.pricesSymbol!.parameters = { ticker: { description: "not in the address" } };
    const { errors } = await parseAsyncApi(JSON.parse(JSON.stringify(doc)));
    assert.ok(
      errors.some((e) => e.includes("asyncapi3-channel-parameters")),
      errors.join("\n"),
    );
  });
});
