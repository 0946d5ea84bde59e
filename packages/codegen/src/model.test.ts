import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { buildModel, channelByAddress, fillPath, namesOf } from "./model.js";

const documentText = readFileSync(new URL("../test/fixtures/market-data.asyncapi.json", import.meta.url), "utf8");

test("the model reads the portal's document: API, gateway URLs, channels", () => {
  const model = buildModel(documentText);
  assert.equal(model.title, "Market Data");
  assert.equal(model.version, "1.2.0");
  assert.equal(model.description, "Prices and orders from the trading floor.");
  assert.equal(model.gatewayUrl, "http://127.0.0.1:8080");
  assert.equal(model.wsUrl, "ws://127.0.0.1:8080/ws");
  assert.equal(model.sseUrl, "http://127.0.0.1:8080/sse");
  assert.equal(model.publishUrl, "http://127.0.0.1:8080/pub");
  assert.deepEqual(model.gatewayUrls, ["http://127.0.0.1:8080"]);
  // Further gateway nodes: websocket2/sse2/httpPublish2, … in order.
  const doc = JSON.parse(documentText);
  doc.servers.sse2 = { ...doc.servers.sse, host: "10.0.0.2:8080" };
  doc.servers.websocket3 = { ...doc.servers.websocket, host: "10.0.0.3:8080", protocol: "wss" };
  assert.deepEqual(buildModel(doc).gatewayUrls, ["http://127.0.0.1:8080", "http://10.0.0.2:8080", "https://10.0.0.3:8080"]);
  assert.deepEqual(
    model.channels.map((c) => [c.address, c.subscribe, c.publish]),
    [
      ["/orders/eu", true, false],
      ["/prices/{symbol}", true, true],
    ],
  );
  const prices = channelByAddress(model, "/prices/{symbol}");
  assert.equal(prices.id, "pricesSymbol");
  assert.equal(prices.names.pascal, "PricesSymbol");
  assert.equal(prices.topic, "prices");
  assert.equal(prices.key, undefined);
  assert.deepEqual(
    prices.parameters.map((p) => p.name),
    ["symbol"],
  );
  assert.equal(prices.payloadFormat, "json");
  // The schema's own refs point into itself again, not into the document.
  assert.deepEqual((prices.schema!.properties as Record<string, unknown>).currency, { $ref: "#/$defs/currency" });
  assert.equal(prices.examplePath, "/prices/AAPL");
  assert.deepEqual(prices.examplePayload, { symbol: "AAPL", price: 189.5, currency: "USD" });

  const orders = channelByAddress(model, "/orders/eu");
  assert.equal(orders.key, "eu");
  assert.equal(orders.schema, undefined);
  assert.equal(orders.examplePath, "/orders/eu");
});

test("a gateway behind a proxy keeps its base path; an unknown channel names the known ones", () => {
  const doc = JSON.parse(documentText);
  for (const server of Object.values(doc.servers) as Record<string, string>[]) {
    server.host = "streams.example.com";
    server.protocol = server.protocol!.replace(/^(ws|http)$/, "$1s");
    server.pathname = `/gw${server.pathname}`;
  }
  const model = buildModel(doc);
  assert.equal(model.gatewayUrl, "https://streams.example.com/gw");
  assert.equal(model.wsUrl, "wss://streams.example.com/gw/ws");
  assert.throws(() => channelByAddress(model, "/nope"), /channels: \/orders\/eu, \/prices\/\{symbol\}/);
});

test("names and paths", () => {
  assert.deepEqual(namesOf("Market Data API"), {
    camel: "marketDataApi",
    pascal: "MarketDataApi",
    snake: "market_data_api",
    constant: "MARKET_DATA_API",
    kebab: "market-data-api",
  });
  assert.equal(namesOf("pricesSymbol").snake, "prices_symbol");
  assert.equal(namesOf("3d prints").camel, "n3dPrints");
  assert.equal(
    fillPath("/prices/{symbol}", () => "BRK.B/é x"),
    "/prices/BRK.B/%C3%A9%20x",
  );
});

test("bad documents get a readable error", () => {
  assert.throws(() => buildModel("{}"), /expected version 3\.x/);
  assert.throws(() => buildModel({ asyncapi: "3.0.0", info: { title: "x", version: "1" }, servers: {} }), /no gateway server/);
});
