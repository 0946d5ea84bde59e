// Endpoints and Kafka topics through /api/v1 against the running portal, its
// database and Kafka: validation of every field, conflicts, catalog records,
// audit entries, and lists that stay correct with 10,000 endpoints.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { streamingApis } from "@sluice/db";
import { eq, sql } from "drizzle-orm";

import { db, rawApi, seedUser, type SeededUser } from "./helpers";
import { auditRows, createTopic, fieldsOf, outboxRows, uniqueName } from "./catalog-helpers";

let editor: SeededUser;
let viewer: SeededUser;
let admin: SeededUser;
let topic: string;
let otherTopic: string;
let thirdTopic: string;
let apiId: string;
const api = () => ({ params: { path: { apiId } } });

before(async () => {
  [editor, viewer, admin, topic, otherTopic, thirdTopic] = await Promise.all([
    seedUser("editor"),
    seedUser("viewer"),
    seedUser("admin"),
    createTopic("prices", 3),
    createTopic("orders", 1),
    createTopic("moves", 1),
  ]);
  const { data } = await editor.api.POST("/apis", { body: { name: uniqueName("Endpoints test"), version: "1.0.0" } });
  apiId = data!.id;
});

const post = (body: Record<string, unknown>, key = editor.key) =>
  rawApi(`/apis/${apiId}/endpoints`, { method: "POST", key, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("creating endpoints", () => {
  test("topic + key: 201 with the canonical path, one catalog record exactly as CATALOG.md, one audit entry", async () => {
    const schema = { type: "object", required: ["price"], properties: { price: { type: "number" } } };
    const { data, response, error } = await editor.api.POST("/apis/{apiId}/endpoints", {
      ...api(),
      body: {
        topic,
        key: "BRK.B/café",
        operations: ["publish", "subscribe"],
        jsonSchema: schema,
        description: "Quotes",
        examples: [{ price: 1.5 }],
      },
    });
    assert.equal(response.status, 201, JSON.stringify(error));
    assert.equal(data?.path, `/${topic}/BRK.B/caf%C3%A9`);
    assert.equal(data?.key, "BRK.B/café");
    assert.equal(data?.keyParam, null);
    assert.deepEqual(data?.operations, ["subscribe", "publish"]);
    assert.equal(data?.payloadFormat, "json");
    assert.deepEqual(data?.examples, [{ price: 1.5 }]);

    const { data: apiRow } = await viewer.api.GET("/apis/{apiId}", api());
    const rows = await outboxRows(`endpoint/${data!.id}`);
    assert.equal(rows.length, 1);
    assert.deepEqual(rows[0]!.recordValue, {
      v: 1,
      id: data!.id,
      path: `/${topic}/BRK.B/caf%C3%A9`,
      topic,
      key: "BRK.B/café",
      key_param: null,
      operations: ["subscribe", "publish"],
      payload_format: "json",
      json_schema: schema,
      value_schema: null,
      key_schema: null,
      api: { id: apiId, name: apiRow!.name, version: "1.0.0" },
    });
    const audit = await auditRows(data!.id, "endpoint.create");
    assert.equal(audit.length, 1);
    assert.equal(audit[0]!.actorUserId, editor.user.id);
    assert.equal((audit[0]!.after as { path: string }).path, data!.path);
  });

  test("a path with {param} covers the topic; a path is percent-decoded into the key", async () => {
    const param = await editor.api.POST("/apis/{apiId}/endpoints", {
      ...api(),
      body: { path: `/${otherTopic}/{orderId}`, operations: ["subscribe"], payloadFormat: "text", examples: ["hello"] },
    });
    assert.equal(param.response.status, 201, JSON.stringify(param.error));
    assert.deepEqual(
      [param.data?.topic, param.data?.key, param.data?.keyParam, param.data?.path],
      [otherTopic, null, "orderId", `/${otherTopic}/{orderId}`],
    );
    const record = (await outboxRows(`endpoint/${param.data!.id}`))[0]!.recordValue as Record<string, unknown>;
    assert.equal(record.key_param, "orderId");
    assert.equal(record.key, null);
    assert.equal(record.json_schema, null);
    assert.equal(record.payload_format, "text");

    const exact = await editor.api.POST("/apis/{apiId}/endpoints", {
      ...api(),
      body: { path: `/${otherTopic}/a%2eb/x%20y`, operations: ["publish"], payloadFormat: "bytes", examples: ["aGk="] },
    });
    assert.equal(exact.response.status, 201, JSON.stringify(exact.error));
    assert.deepEqual([exact.data?.key, exact.data?.path], ["a.b/x y", `/${otherTopic}/a.b/x%20y`]);
  });

  test("viewers cannot create, change or delete endpoints, but can read them", async () => {
    const created = await editor.api.POST("/apis/{apiId}/endpoints", {
      ...api(),
      body: { topic, key: uniqueName("viewer"), operations: ["subscribe"] },
    });
    const id = created.data!.id;
    assert.equal((await post({ topic, key: "v", operations: ["subscribe"] }, viewer.key)).status, 403);
    assert.equal(
      (await viewer.api.PATCH("/endpoints/{endpointId}", { params: { path: { endpointId: id } }, body: { description: "x" } })).response
        .status,
      403,
    );
    assert.equal((await viewer.api.DELETE("/endpoints/{endpointId}", { params: { path: { endpointId: id } } })).response.status, 403);
    const read = await viewer.api.GET("/endpoints/{endpointId}", { params: { path: { endpointId: id } } });
    assert.equal(read.response.status, 200);
    assert.equal(read.data?.api.id, apiId);
  });

  test("every bad field is refused with a problem naming it", async () => {
    const ok = { topic, key: "k-bad-input", operations: ["subscribe"] };
    const schema = { type: "object", required: ["price"] };
    const cases: [Record<string, unknown>, string[]][] = [
      [{ ...ok, topic: "bad topic!" }, ["topic"]],
      [{ ...ok, topic: "__consumer_offsets" }, ["topic"]],
      [{ ...ok, topic: uniqueName("no-such-topic") }, ["topic"]],
      [{ ...ok, topic: undefined }, ["topic"]],
      [{ ...ok, key: "a//b" }, ["key"]],
      [{ ...ok, key: "x".repeat(1025) }, ["key"]],
      [{ ...ok, key: "tab\tkey" }, ["key"]],
      [{ ...ok, key: undefined }, ["key"]],
      [{ ...ok, key: undefined, keyParam: "9lives" }, ["keyParam"]],
      [{ ...ok, keyParam: "both" }, ["keyParam"]],
      [{ ...ok, operations: [] }, ["operations"]],
      [{ ...ok, operations: ["read"] }, ["operations.0"]],
      [{ ...ok, operations: undefined }, ["operations"]],
      [{ ...ok, payloadFormat: "xml" }, ["payloadFormat"]],
      [{ ...ok, jsonSchema: { type: "objekt" } }, ["jsonSchema"]],
      [{ ...ok, jsonSchema: "{}" }, ["jsonSchema"]],
      [{ ...ok, payloadFormat: "text", jsonSchema: schema }, ["jsonSchema"]],
      [{ ...ok, jsonSchema: schema, examples: [{ price: 1 }, { nope: 1 }] }, ["examples.1"]],
      [{ ...ok, payloadFormat: "text", examples: [{ not: "text" }] }, ["examples.0"]],
      [{ ...ok, payloadFormat: "bytes", examples: ["***"] }, ["examples.0"]],
      [{ ...ok, examples: Array(11).fill({}) }, ["examples"]],
      [{ ...ok, description: "x".repeat(2001) }, ["description"]],
      [{ path: "/only-a-topic", operations: ["subscribe"] }, ["path"]],
      [{ path: `/${topic}/a%2Fb`, operations: ["subscribe"] }, ["path"]],
      [{ path: `/${uniqueName("no-such-topic")}/k`, operations: ["subscribe"] }, ["path"]],
      [{ path: `/${topic}/k`, topic, operations: ["subscribe"] }, ["path"]],
    ];
    for (const [body, fields] of cases) {
      const res = await post(body);
      const problem = await res.json();
      assert.equal(res.status, 422, `${JSON.stringify(body).slice(0, 120)} → ${JSON.stringify(problem)}`);
      assert.deepEqual(fieldsOf(problem), fields, JSON.stringify(body).slice(0, 120));
    }
  });

  test("one endpoint per path, per topic+key and one {param} per topic: 409 naming the field", async () => {
    const key = uniqueName("dup");
    assert.equal((await post({ topic, key, operations: ["subscribe"] })).status, 201);
    const sameKey = await post({ topic, key, operations: ["publish"] });
    assert.equal(sameKey.status, 409);
    assert.deepEqual(fieldsOf(await sameKey.json()), ["key"]);
    const samePath = await post({ path: `/${topic}/${key}`, operations: ["publish"] });
    assert.equal(samePath.status, 409);
    assert.deepEqual(fieldsOf(await samePath.json()), ["path"]);
    assert.equal((await post({ topic, keyParam: "symbol", operations: ["subscribe"] })).status, 201);
    const secondParam = await post({ topic, keyParam: "other", operations: ["subscribe"] });
    assert.equal(secondParam.status, 409);
    assert.deepEqual(fieldsOf(await secondParam.json()), ["keyParam"]);
  });

  test("an unknown API is 404", async () => {
    const res = await rawApi("/apis/00000000-0000-4000-8000-000000000000/endpoints", {
      method: "POST",
      key: editor.key,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ topic, key: "k", operations: ["subscribe"] }),
    });
    assert.equal(res.status, 404);
    assert.equal(
      (await viewer.api.GET("/apis/{apiId}/endpoints", { params: { path: { apiId: "00000000-0000-4000-8000-000000000000" } } })).response
        .status,
      404,
    );
  });
});

describe("changing and deleting endpoints", () => {
  test("a change writes a new catalog record and an audit entry with before and after", async () => {
    const { data: created } = await editor.api.POST("/apis/{apiId}/endpoints", {
      ...api(),
      body: { topic, key: uniqueName("edit"), operations: ["subscribe"] },
    });
    const id = created!.id;
    const newKey = uniqueName("moved");
    const { data, response, error } = await admin.api.PATCH("/endpoints/{endpointId}", {
      params: { path: { endpointId: id } },
      body: { key: newKey, operations: ["subscribe", "publish"], description: "Moved" },
    });
    assert.equal(response.status, 200, JSON.stringify(error));
    assert.equal(data?.path, `/${topic}/${newKey}`);
    assert.equal(data?.description, "Moved");
    const rows = await outboxRows(`endpoint/${id}`);
    assert.equal(rows.length, 2);
    const record = rows[1]!.recordValue as Record<string, unknown>;
    assert.equal(record.path, `/${topic}/${newKey}`);
    assert.deepEqual(record.operations, ["subscribe", "publish"]);
    const audit = await auditRows(id, "endpoint.update");
    assert.equal(audit.length, 1);
    assert.equal((audit[0]!.before as { key: string }).key, created!.key);
    assert.equal((audit[0]!.after as { key: string }).key, newKey);

    // Switching to a parameter clears the key; removing the schema with null works.
    const toParam = await editor.api.PATCH("/endpoints/{endpointId}", {
      params: { path: { endpointId: id } },
      body: { topic: thirdTopic, keyParam: "anyKey", jsonSchema: null },
    });
    assert.equal(toParam.response.status, 200, JSON.stringify(toParam.error));
    assert.deepEqual([toParam.data?.key, toParam.data?.keyParam, toParam.data?.path], [null, "anyKey", `/${thirdTopic}/{anyKey}`]);
  });

  test("bad changes name the field; a topic Kafka lacks is refused; unknown endpoints are 404", async () => {
    const { data: created } = await editor.api.POST("/apis/{apiId}/endpoints", {
      ...api(),
      body: { topic, key: uniqueName("bad-edit"), operations: ["subscribe"] },
    });
    const patch = (body: Record<string, unknown>) =>
      rawApi(`/endpoints/${created!.id}`, {
        method: "PATCH",
        key: editor.key,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    for (const [body, fields] of [
      [{ topic: uniqueName("gone") }, ["topic"]],
      [{ operations: [] }, ["operations"]],
      [{ key: "" }, ["key"]],
      [{ payloadFormat: "text", examples: [1] }, ["examples.0"]],
      [{ jsonSchema: { minimum: "zero" } }, ["jsonSchema"]],
    ] as [Record<string, unknown>, string[]][]) {
      const res = await patch(body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.deepEqual(fieldsOf(await res.json()), fields, JSON.stringify(body));
    }
    assert.equal((await outboxRows(`endpoint/${created!.id}`)).length, 1, "refused changes leave no record");
    const missing = "00000000-0000-4000-8000-000000000000";
    assert.equal((await editor.api.GET("/endpoints/{endpointId}", { params: { path: { endpointId: missing } } })).response.status, 404);
    assert.equal(
      (await editor.api.PATCH("/endpoints/{endpointId}", { params: { path: { endpointId: missing } }, body: { description: "x" } }))
        .response.status,
      404,
    );
    assert.equal((await editor.api.DELETE("/endpoints/{endpointId}", { params: { path: { endpointId: missing } } })).response.status, 404);
    const badId = await editor.api.GET("/endpoints/{endpointId}", { params: { path: { endpointId: "x" } } });
    assert.deepEqual(fieldsOf(badId.error), ["endpointId"]);
  });

  test("delete: 204, a tombstone and an audit entry", async () => {
    const { data: created } = await editor.api.POST("/apis/{apiId}/endpoints", {
      ...api(),
      body: { topic, key: uniqueName("delete"), operations: ["subscribe"] },
    });
    const res = await editor.api.DELETE("/endpoints/{endpointId}", { params: { path: { endpointId: created!.id } } });
    assert.equal(res.response.status, 204);
    const rows = await outboxRows(`endpoint/${created!.id}`);
    assert.equal(rows.length, 2);
    assert.equal(rows[1]!.recordValue, null);
    const audit = await auditRows(created!.id, "endpoint.delete");
    assert.equal(audit.length, 1);
    assert.equal((audit[0]!.before as { path: string }).path, created!.path);
    assert.equal((await editor.api.GET("/endpoints/{endpointId}", { params: { path: { endpointId: created!.id } } })).response.status, 404);
  });
});

describe("listing endpoints", () => {
  test("per API and across the catalog, searchable by path and description", async () => {
    const marker = uniqueName("needle");
    const { data: a } = await editor.api.POST("/apis/{apiId}/endpoints", {
      ...api(),
      body: { topic, key: `${marker}-key`, operations: ["subscribe"] },
    });
    const { data: b } = await editor.api.POST("/apis/{apiId}/endpoints", {
      ...api(),
      body: { topic, key: uniqueName("plain"), operations: ["subscribe"], description: `About ${marker}`, jsonSchema: { type: "object" } },
    });
    const perApi = await viewer.api.GET("/apis/{apiId}/endpoints", { params: { path: { apiId }, query: { q: marker } } });
    assert.deepEqual(new Set(perApi.data!.items.map((e) => e.id)), new Set([a!.id, b!.id]));
    assert.equal(perApi.data!.items.find((e) => e.id === b!.id)?.hasSchema, true);
    const global = await viewer.api.GET("/endpoints", { params: { query: { q: marker.toUpperCase() } } });
    assert.deepEqual(new Set(global.data!.items.map((e) => e.id)), new Set([a!.id, b!.id]));
    assert.equal(global.data!.items[0]!.api.id, apiId);
  });
});

describe("Kafka topics", () => {
  test("editors see the real topics with their partition counts; viewers may not list them", async () => {
    const { data, response } = await editor.api.GET("/topics");
    assert.equal(response.status, 200);
    assert.deepEqual(
      data!.items.find((t) => t.name === topic),
      { name: topic, partitions: 3 },
    );
    assert.ok(data!.items.every((t) => !t.name.startsWith("__")));
    assert.equal((await viewer.api.GET("/topics")).response.status, 403);
  });
});

describe("10,000 endpoints", () => {
  let bigApiId: string;
  const N = 10_000;
  before(async () => {
    const { data } = await editor.api.POST("/apis", { body: { name: uniqueName("Ten thousand"), version: "1.0.0" } });
    bigApiId = data!.id;
    // One statement; the database does not ask Kafka, so a real topic name is enough.
    await db.execute(sql`
      insert into endpoints (api_id, path, topic, key, operations, description)
      select ${bigApiId}::uuid, '/' || ${topic} || '/big-' || lpad(i::text, 5, '0'), ${topic}, 'big-' || lpad(i::text, 5, '0'),
             array['subscribe'], 'Endpoint number ' || i
      from generate_series(1, ${N}) as i`);
  });
  after(async () => {
    // Removed the way they came (SQL): these rows never reached the catalog topic.
    await db.delete(streamingApis).where(eq(streamingApis.id, bigApiId));
  });

  test("paging with limit=200 returns each of the 10,000 endpoints once, in path order", async () => {
    const paths: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const { data, response } = await viewer.api.GET("/apis/{apiId}/endpoints", {
        params: { path: { apiId: bigApiId }, query: { limit: 200, cursor } },
      });
      assert.equal(response.status, 200);
      assert.ok(data!.items.length <= 200);
      paths.push(...data!.items.map((e) => e.path));
      cursor = data!.nextCursor ?? undefined;
      pages++;
    } while (cursor && pages < 100);
    assert.equal(paths.length, N);
    assert.equal(new Set(paths).size, N);
    assert.equal(pages, 50);
    assert.equal(paths[0], `/${topic}/big-00001`);
    assert.equal(paths[N - 1], `/${topic}/big-10000`);
    for (let i = 1; i < paths.length; i++) assert.ok(paths[i - 1]! < paths[i]!, `order at ${i}`);
  });

  test("a search finds the one endpoint among them", async () => {
    const { data } = await viewer.api.GET("/apis/{apiId}/endpoints", {
      params: { path: { apiId: bigApiId }, query: { q: "Endpoint number 4242" } },
    });
    assert.deepEqual(
      data!.items.map((e) => e.path),
      [`/${topic}/big-04242`],
    );
    const byPath = await viewer.api.GET("/endpoints", { params: { query: { q: `${topic}/big-07777` } } });
    assert.deepEqual(
      byPath.data!.items.map((e) => e.key),
      ["big-07777"],
    );
    const { data: apiView } = await viewer.api.GET("/apis/{apiId}", { params: { path: { apiId: bigApiId } } });
    assert.equal(apiView!.endpointCount, N);
  });
});
