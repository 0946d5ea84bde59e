// Against the real schema registry of the test stack (SCHEMA_REGISTRY_URL, set
// by the test runner): schemas registered with the registry's own REST API are
// read back through the client. Subjects get unique names, so runs never clash.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, test } from "node:test";
import { RegistryClient, RegistryError, loadRegistrySettings } from "../src/index.ts";

const settings = loadRegistrySettings(process.env);
if (!settings) throw new Error("SCHEMA_REGISTRY_URL is not set: run these tests with the test stack's registry");
const client = new RegistryClient(settings);
after(() => client.close());

const run = randomUUID().slice(0, 8);

/** Registers a schema under a subject with the plain REST API (not the client under test); returns its id. */
async function register(subject: string, body: Record<string, unknown>): Promise<number> {
  const res = await fetch(`${settings!.url}/subjects/${encodeURIComponent(subject)}/versions`, {
    method: "POST",
    headers: { "content-type": "application/vnd.schemaregistry.v1+json" },
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as { id?: number };
  assert.equal(res.status, 200, JSON.stringify(answer));
  return answer.id!;
}

const avro = (fields: unknown[]) => JSON.stringify({ type: "record", name: "Price", namespace: "sluice.test", fields });

test("an Avro subject with two versions", async () => {
  const subject = `prices-${run}-value`;
  const v1 = await register(subject, { schema: avro([{ name: "symbol", type: "string" }]) });
  const v2 = await register(subject, {
    schema: avro([
      { name: "symbol", type: "string" },
      { name: "price", type: ["null", "double"], default: null },
    ]),
  });
  assert.notEqual(v1, v2);
  assert.ok((await client.subjects()).includes(subject));
  assert.deepEqual(await client.versions(subject), [1, 2]);
  const latest = await client.version(subject, "latest");
  assert.equal(latest.subject, subject);
  assert.equal(latest.version, 2);
  assert.equal(latest.id, v2);
  assert.equal(latest.schemaType, "AVRO");
  assert.equal(JSON.parse(latest.schema).fields.length, 2);
  const first = await client.version(subject, 1);
  assert.equal(first.id, v1);
  const byId = await client.schemaById(v1);
  assert.equal(byId.schemaType, "AVRO");
  assert.equal(JSON.parse(byId.schema).fields.length, 1);
});

test("a Protobuf and a JSON Schema subject", async () => {
  const proto = `syntax = "proto3";\npackage sluice.test;\nmessage Order { string id = 1; int64 quantity = 2; }\n`;
  const protoId = await register(`orders-${run}-value`, { schemaType: "PROTOBUF", schema: proto });
  const got = await client.version(`orders-${run}-value`, "latest");
  assert.equal(got.schemaType, "PROTOBUF");
  assert.equal(got.id, protoId);
  assert.match(got.schema, /message Order/);

  const jsonSchema = JSON.stringify({ type: "object", properties: { id: { type: "string" } }, required: ["id"] });
  const jsonId = await register(`events-${run}-value`, { schemaType: "JSON", schema: jsonSchema });
  const byId = await client.schemaById(jsonId);
  assert.equal(byId.schemaType, "JSON");
  assert.deepEqual(JSON.parse(byId.schema), JSON.parse(jsonSchema));
});

test("a missing subject, version and id are not_found", async () => {
  const subject = `missing-${run}-value`;
  for (const work of [() => client.versions(subject), () => client.version(subject, "latest"), () => client.schemaById(2_000_000_000)]) {
    await assert.rejects(work(), (err: unknown) => err instanceof RegistryError && err.kind === "not_found");
  }
  const existing = `versions-${run}-value`;
  await register(existing, { schema: avro([{ name: "a", type: "int" }]) });
  await assert.rejects(
    client.version(existing, 5),
    (err: unknown) => err instanceof RegistryError && err.kind === "not_found" && err.registryCode === 40402,
  );
});
