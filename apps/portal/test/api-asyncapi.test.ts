// GET /apis/{apiId}/asyncapi.{json,yaml} against the running portal: both formats
// parse with @asyncapi/parser without errors and describe exactly the endpoints.
// APIs and endpoints are inserted directly (their CRUD is built separately).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { endpoints, streamingApis, type NewEndpoint } from "@sluice/db";
import { inArray } from "drizzle-orm";
import { parse as parseYaml } from "yaml";

import { parseAsyncApi } from "../lib/asyncapi/validate-document";
import { db, rawApi, seedUser, sessionFor, type SeededUser } from "./helpers";

const run = randomUUID().slice(0, 8);
const topic = (name: string) => `it-docs-${run}-${name}`;
const createdApis: string[] = [];

async function insertApi(name: string, rows: Omit<NewEndpoint, "apiId">[]) {
  const [api] = await db
    .insert(streamingApis)
    .values({ name: `${name} ${run}`, version: "1.0.0", description: `Docs test ${run}`, tags: ["it"] })
    .returning();
  createdApis.push(api!.id);
  const inserted = rows.length
    ? await db
        .insert(endpoints)
        .values(rows.map((r) => ({ ...r, apiId: api!.id })))
        .returning()
    : [];
  return { api: api!, endpoints: inserted };
}

let viewer: SeededUser;
let market: Awaited<ReturnType<typeof insertApi>>;

/** What the endpoints allow, as the document should state it: "receive <address>" / "send <address>". */
const expectedOperations = (rows: { path: string; operations: string[] }[]) =>
  rows.flatMap((e) => e.operations.map((op) => `${op === "subscribe" ? "receive" : "send"} ${e.path}`)).sort();

describe("AsyncAPI document of an API", () => {
  // Suite-level hooks: they run before helpers.ts closes the shared pool.
  before(async () => {
    viewer = await seedUser("viewer", "docs-viewer");
    market = await insertApi("Market data", [
      {
        path: `/${topic("prices")}/{symbol}`,
        topic: topic("prices"),
        keyParam: "symbol",
        operations: ["subscribe"],
        payloadFormat: "json",
        jsonSchema: {
          type: "object",
          required: ["price"],
          properties: { price: { type: "number" }, symbol: { $ref: "#/$defs/symbol" } },
          $defs: { symbol: { type: "string" } },
        },
        examples: [{ price: 1.5, symbol: "AAPL" }],
        description: "Prices per symbol",
      },
      { path: `/${topic("orders")}/eu`, topic: topic("orders"), key: "eu", operations: ["publish"], payloadFormat: "json" },
      { path: `/${topic("logs")}/app`, topic: topic("logs"), key: "app", operations: ["subscribe", "publish"], payloadFormat: "text" },
      { path: `/${topic("frames")}/cam1`, topic: topic("frames"), key: "cam1", operations: ["subscribe"], payloadFormat: "bytes" },
    ]);
  });

  after(async () => {
    if (createdApis.length) await db.delete(streamingApis).where(inArray(streamingApis.id, createdApis));
  });

  test("JSON: a valid AsyncAPI 3.0.0 document with one channel per endpoint and the allowed operations", async () => {
    const { data, response } = await viewer.api.GET("/apis/{apiId}/asyncapi.json", { params: { path: { apiId: market.api.id } } });
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
    assert.match(
      response.headers.get("content-disposition") ?? "",
      /^attachment; filename="market-data-[0-9a-f]{8}-1\.0\.0\.asyncapi\.json"$/,
    );
    assert.equal(data?.asyncapi, "3.0.0");
    assert.equal(data?.info.title, market.api.name);

    const { document, errors } = await parseAsyncApi(data as Record<string, unknown>);
    assert.deepEqual(errors, []);
    assert.deepEqual(
      document!
        .channels()
        .all()
        .map((c) => c.address())
        .sort(),
      market.endpoints.map((e) => e.path).sort(),
    );
    assert.deepEqual(
      document!
        .operations()
        .all()
        .map((o) => `${o.action()} ${o.channels().all()[0]!.address()}`)
        .sort(),
      expectedOperations(market.endpoints),
    );
    const ws = document!
      .servers()
      .all()
      .find((s) => s.protocol() === "ws" || s.protocol() === "wss");
    const gateway = new URL(process.env.SLUICE_GATEWAY_PUBLIC_URL ?? "http://127.0.0.1:8080");
    assert.equal(ws?.host(), gateway.host);
    assert.equal(ws?.pathname(), "/ws");
    const prices = document!
      .channels()
      .all()
      .find((c) => c.address()!.endsWith("/{symbol}"))!;
    assert.deepEqual(
      prices
        .parameters()
        .all()
        .map((p) => p.id()),
      ["symbol"],
    );
    assert.deepEqual(
      prices
        .messages()
        .all()[0]!
        .examples()
        .all()
        .map((e) => e.payload()),
      [{ price: 1.5, symbol: "AAPL" }],
    );
  });

  test("YAML: the same document, downloadable", async () => {
    const res = await rawApi(`/apis/${market.api.id}/asyncapi.yaml`, { key: viewer.key });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^application\/yaml/);
    assert.match(res.headers.get("content-disposition") ?? "", /^attachment; filename="market-data-[0-9a-f]{8}-1\.0\.0\.asyncapi\.yaml"$/);
    const text = await res.text();
    assert.match(text, /^asyncapi: 3\.0\.0$/m);
    assert.doesNotMatch(text, /^\s*[^#\n]*\*[a-z0-9]+$/m, "no YAML aliases");

    const { document, errors } = await parseAsyncApi(text);
    assert.deepEqual(errors, []);
    assert.deepEqual(
      document!
        .channels()
        .all()
        .map((c) => c.address())
        .sort(),
      market.endpoints.map((e) => e.path).sort(),
    );
    assert.deepEqual(
      document!
        .operations()
        .all()
        .map((o) => `${o.action()} ${o.channels().all()[0]!.address()}`)
        .sort(),
      expectedOperations(market.endpoints),
    );

    const json = await (await rawApi(`/apis/${market.api.id}/asyncapi.json`, { key: viewer.key })).json();
    assert.deepEqual(parseYaml(text), json, "YAML and JSON carry the same document");
  });

  test("an API without endpoints is still a valid document, with no channels", async () => {
    const empty = await insertApi("Empty", []);
    const { data, response } = await viewer.api.GET("/apis/{apiId}/asyncapi.json", { params: { path: { apiId: empty.api.id } } });
    assert.equal(response.status, 200);
    const { errors, document } = await parseAsyncApi(data as Record<string, unknown>);
    assert.deepEqual(errors, []);
    assert.equal(document!.channels().length, 0);
  });

  test("a signed-in browser session can download (GET needs no CSRF token)", async () => {
    const { cookie } = await sessionFor(viewer.user.id);
    const res = await rawApi(`/apis/${market.api.id}/asyncapi.yaml`, { headers: { cookie } });
    assert.equal(res.status, 200);
  });

  test("unknown API: 404 problem; an id that is not a UUID: 422 naming apiId", async () => {
    for (const format of ["json", "yaml"]) {
      const missing = await rawApi(`/apis/${randomUUID()}/asyncapi.${format}`, { key: viewer.key });
      assert.equal(missing.status, 404, format);
      assert.match(missing.headers.get("content-type") ?? "", /application\/problem\+json/);
      const bad = await rawApi(`/apis/not-a-uuid/asyncapi.${format}`, { key: viewer.key });
      assert.equal(bad.status, 422, format);
      assert.deepEqual(
        (await bad.json()).errors.map((e: { field: string }) => e.field),
        ["apiId"],
      );
    }
  });

  test("no credentials: 401", async () => {
    for (const format of ["json", "yaml"]) {
      const res = await rawApi(`/apis/${market.api.id}/asyncapi.${format}`);
      assert.equal(res.status, 401, format);
    }
  });
});
