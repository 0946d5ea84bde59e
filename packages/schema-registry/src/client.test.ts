// The client against an in-process fake registry: paths, auth headers, the two
// kinds of failure, the timeout, and no credential in any message.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { RegistryClient, RegistryError, isRegistryError } from "./client.ts";

const TOKEN = "t0ken-secret-xyz";
let server: http.Server;
let url: string;
const seen: { path: string; authorization?: string }[] = [];
let hang = false;

const AVRO = '{"type":"record","name":"Price","fields":[{"name":"p","type":"double"}]}';

before(async () => {
  server = http.createServer((req, res) => {
    seen.push({ path: req.url ?? "", authorization: req.headers.authorization });
    if (hang) return; // never answers
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/vnd.schemaregistry.v1+json" });
      res.end(JSON.stringify(body));
    };
    const path = (req.url ?? "").replace(/^\/apis\/ccompat\/v7/, "");
    if (path === "/subjects") return send(200, ["prices-value", "a-value"]);
    if (path === "/subjects/prices-value/versions") return send(200, [2, 1]);
    if (path === "/subjects/prices-value/versions/latest" || path === "/subjects/prices-value/versions/2")
      return send(200, { subject: "prices-value", version: 2, id: 7, schema: AVRO });
    if (path === "/subjects/prices-value/versions/9") return send(404, { error_code: 40402, message: "Version 9 not found." });
    if (path.startsWith("/subjects/a%2Fb")) return send(200, [1]);
    if (path.startsWith("/subjects/")) return send(404, { error_code: 40401, message: "Subject not found." });
    if (path === "/schemas/ids/7")
      return send(200, {
        schema: 'syntax = "proto3";',
        schemaType: "PROTOBUF",
        references: [{ name: "x.proto", subject: "x", version: 1 }],
      });
    if (path === "/schemas/ids/8") return send(404, { error_code: 40403, message: "Schema 8 not found" });
    if (path === "/schemas/ids/9") return send(500, { error_code: 50001, message: "Error in the backend data store" });
    if (path === "/schemas/ids/10") return send(401, { error_code: 40101, message: "Unauthorized" });
    if (path === "/schemas/ids/11") return send(200, { nothing: true });
    return send(404, { message: "HTTP 404 Not Found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/apis/ccompat/v7`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const client = (timeoutMs?: number) =>
  new RegistryClient(
    { url, auth: { kind: "bearer", token: TOKEN, tokenSource: { variable: "SCHEMA_REGISTRY_BEARER_TOKEN" } } },
    { timeoutMs },
  );

async function rejects(work: Promise<unknown>, kind: RegistryError["kind"], pattern: RegExp) {
  await assert.rejects(work, (err: unknown) => {
    assert.ok(err instanceof RegistryError, String(err));
    assert.equal(err.kind, kind, err.message);
    assert.match(err.message, pattern);
    assert.match(err.message, /^SCHEMA_REGISTRY_URL \(http:\/\/127\.0\.0\.1:\d+\/apis\/ccompat\/v7\)/);
    assert.ok(!err.message.includes(TOKEN));
    return true;
  });
}

test("subjects, versions and a version, with the bearer token", async () => {
  const c = client();
  try {
    assert.deepEqual(await c.subjects(), ["a-value", "prices-value"]);
    assert.deepEqual(await c.versions("prices-value"), [1, 2]);
    assert.deepEqual(await c.version("prices-value", "latest"), {
      subject: "prices-value",
      version: 2,
      id: 7,
      schemaType: "AVRO",
      schema: AVRO,
      references: [],
    });
    assert.equal(seen.at(-1)?.authorization, `Bearer ${TOKEN}`);
    assert.deepEqual(await c.versions("a/b"), [1], "the subject is one path segment");
  } finally {
    c.close();
  }
});

test("basic credentials are sent as HTTP Basic", async () => {
  const c = new RegistryClient({ url, auth: { kind: "basic", username: "u", password: "p:w", passwordSource: { variable: "X" } } });
  try {
    await c.subjects();
    assert.equal(seen.at(-1)?.authorization, `Basic ${Buffer.from("u:p:w").toString("base64")}`);
  } finally {
    c.close();
  }
});

test("a schema by id keeps its type and references", async () => {
  const c = client();
  try {
    assert.deepEqual(await c.schemaById(7), {
      id: 7,
      schemaType: "PROTOBUF",
      schema: 'syntax = "proto3";',
      references: [{ name: "x.proto", subject: "x", version: 1 }],
    });
  } finally {
    c.close();
  }
});

test("not found (40401, 40402, 40403) is told apart from unavailable", async () => {
  const c = client();
  try {
    await rejects(c.versions("nope-value"), "not_found", /40401/);
    await rejects(c.version("prices-value", 9), "not_found", /40402/);
    await rejects(c.schemaById(8), "not_found", /40403/);
    await rejects(c.schemaById(9), "unavailable", /HTTP 500: Error in the backend data store/);
    await rejects(c.schemaById(10), "unavailable", /refused the credentials \(HTTP 401\)/);
    await rejects(c.schemaById(11), "unavailable", /did not answer a schema/);
    await rejects(c.schemaById(12), "unavailable", /HTTP 404.*Confluent-compatible API/);
  } finally {
    c.close();
  }
});

test("a registry that does not answer is unavailable after the timeout", async () => {
  hang = true;
  const c = client(200);
  try {
    await rejects(c.subjects(), "unavailable", /no answer within 0\.2 s/);
  } finally {
    hang = false;
    c.close();
  }
});

test("a registry that is not there is unavailable", async () => {
  const c = new RegistryClient({ url: "http://127.0.0.1:1/apis/ccompat/v7", auth: { kind: "none" } });
  await assert.rejects(
    c.subjects(),
    (err: unknown) => err instanceof RegistryError && err.kind === "unavailable" && /ECONNREFUSED/.test(err.message),
  );
  c.close();
});

test("isRegistryError tells the error by its name, so a second copy of this module's class passes too", () => {
  class RegistryErrorOfAnotherCopy extends Error {
    override name = "RegistryError";
    readonly kind = "not_found" as const;
  }
  assert.equal(isRegistryError(new RegistryError("not_found", "x")), true);
  assert.equal(isRegistryError(new RegistryErrorOfAnotherCopy("x")), true);
  assert.equal(isRegistryError(new Error("x")), false);
  assert.equal(isRegistryError({ name: "RegistryError", kind: "not_found" }), false);
});
