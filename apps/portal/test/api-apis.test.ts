// Streaming APIs through /api/v1 against the running portal, its database and Kafka.
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";

import { streamingApis } from "@sluice/db";
import { eq } from "drizzle-orm";

import { db, rawApi, seedUser, type SeededUser } from "./helpers";
import { auditRows, createTopic, fieldsOf, outboxRows, uniqueName } from "./catalog-helpers";

let editor: SeededUser;
let viewer: SeededUser;
let topic: string;

before(async () => {
  [editor, viewer, topic] = await Promise.all([seedUser("editor"), seedUser("viewer"), createTopic("apis", 2)]);
});

const newApi = async (overrides: Record<string, unknown> = {}) => {
  const { data, response, error } = await editor.api.POST("/apis", {
    body: { name: uniqueName("Market data"), version: "1.0.0", ...overrides },
  });
  assert.equal(response.status, 201, JSON.stringify(error));
  return data!;
};

describe("creating APIs", () => {
  test("an editor creates an API; the owner defaults to the creator and the change is audited", async () => {
    const name = uniqueName("Prices");
    const { data, response } = await editor.api.POST("/apis", {
      body: { name, version: "2.1.0", description: "Quotes as they trade", tags: ["Market-Data", "eu", "eu"] },
    });
    assert.equal(response.status, 201);
    assert.equal(data?.name, name);
    assert.deepEqual(data?.tags, ["market-data", "eu"]);
    assert.equal(data?.ownerId, editor.user.id);
    assert.equal(data?.owner?.email, editor.user.email);
    assert.equal(data?.endpointCount, 0);
    const audit = await auditRows(data!.id, "api.create");
    assert.equal(audit.length, 1);
    assert.equal(audit[0]!.actorUserId, editor.user.id);
    assert.equal((audit[0]!.after as { name: string }).name, name);
  });

  test("viewers may read but not create, change or delete", async () => {
    const api = await newApi();
    assert.equal((await viewer.api.POST("/apis", { body: { name: uniqueName("x"), version: "1.0.0" } })).response.status, 403);
    assert.equal(
      (await viewer.api.PATCH("/apis/{apiId}", { params: { path: { apiId: api.id } }, body: { description: "no" } })).response.status,
      403,
    );
    assert.equal((await viewer.api.DELETE("/apis/{apiId}", { params: { path: { apiId: api.id } } })).response.status, 403);
    const read = await viewer.api.GET("/apis/{apiId}", { params: { path: { apiId: api.id } } });
    assert.equal(read.response.status, 200);
    assert.equal(read.data?.id, api.id);
  });

  test("every bad field is named", async () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [{ name: "", version: "1.0.0" }, ["name"]],
      [{ name: "x".repeat(101), version: "1.0.0" }, ["name"]],
      [{ name: "A", version: "" }, ["version"]],
      [{ name: "A", version: "1 beta" }, ["version"]],
      // docs/portal.md promises 1.0.0-style versions: "one" was accepted before.
      [{ name: "A", version: "one" }, ["version"]],
      [{ name: "A", version: "1" }, ["version"]],
      [{ name: "A", version: "1.0.0", description: "x".repeat(2001) }, ["description"]],
      [{ name: "A", version: "1.0.0", tags: ["fine", "not fine"] }, ["tags.1"]],
      [{ name: "A", version: "1.0.0", tags: "market" }, ["tags"]],
      [{ name: "A", version: "1.0.0", ownerId: "nobody" }, ["ownerId"]],
      [{ name: "A", version: "1.0.0", ownerId: "00000000-0000-4000-8000-000000000000" }, ["ownerId"]],
      [{ version: 1 }, ["name", "version"]],
    ];
    for (const [body, fields] of cases) {
      const res = await rawApi("/apis", {
        method: "POST",
        key: editor.key,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.deepEqual(fieldsOf(await res.json()).sort(), fields.sort(), JSON.stringify(body));
    }
  });

  test("name + version is unique: 409 naming version", async () => {
    const api = await newApi();
    const again = await editor.api.POST("/apis", { body: { name: api.name, version: api.version } });
    assert.equal(again.response.status, 409);
    assert.deepEqual(fieldsOf(again.error), ["version"]);
    const otherVersion = await editor.api.POST("/apis", { body: { name: api.name, version: "2.0.0" } });
    assert.equal(otherVersion.response.status, 201);
  });
});

describe("reading and listing APIs", () => {
  test("unknown ids are 404, malformed ids name the parameter", async () => {
    const missing = await viewer.api.GET("/apis/{apiId}", { params: { path: { apiId: "00000000-0000-4000-8000-000000000000" } } });
    assert.equal(missing.response.status, 404);
    const bad = await viewer.api.GET("/apis/{apiId}", { params: { path: { apiId: "42" } } });
    assert.equal(bad.response.status, 422);
    assert.deepEqual(fieldsOf(bad.error), ["apiId"]);
  });

  test("search by name, description and tag; filter by tag; page with a cursor", async () => {
    const marker = uniqueName("zebra");
    const tag = marker.toLowerCase();
    const a = await newApi({ name: `${marker} alpha` });
    const b = await newApi({ name: uniqueName("Beta feed"), description: `mentions ${marker} here` });
    const c = await newApi({ name: uniqueName("Gamma feed"), tags: [tag] });
    const { data } = await viewer.api.GET("/apis", { params: { query: { q: marker.toUpperCase() } } });
    assert.deepEqual(new Set(data!.items.map((i) => i.id)), new Set([a.id, b.id, c.id]));

    const tagged = await viewer.api.GET("/apis", { params: { query: { tag } } });
    assert.deepEqual(
      tagged.data!.items.map((i) => i.id),
      [c.id],
    );

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await viewer.api.GET("/apis", { params: { query: { q: marker, limit: 1, cursor } } });
      assert.equal(page.response.status, 200);
      assert.ok(page.data!.items.length <= 1);
      seen.push(...page.data!.items.map((i) => i.name));
      cursor = page.data!.nextCursor ?? undefined;
    } while (cursor);
    assert.equal(seen.length, 3);
    assert.equal(new Set(seen).size, 3, "each API exactly once across the pages");

    const badCursor = await viewer.api.GET("/apis", { params: { query: { cursor: "nonsense" } } });
    assert.equal(badCursor.response.status, 422);
    assert.deepEqual(fieldsOf(badCursor.error), ["cursor"]);
    const badLimit = await viewer.api.GET("/apis", { params: { query: { limit: 1000 } } });
    assert.deepEqual(fieldsOf(badLimit.error), ["limit"]);
    assert.ok(!(await viewer.api.GET("/apis", { params: { query: { q: "%" } } })).error);
  });
});

describe("changing and deleting APIs", () => {
  test("renaming re-emits every endpoint's catalog record with the new name, in one change", async () => {
    const api = await newApi();
    const created = [];
    for (const key of ["a", "b"]) {
      const { data, response, error } = await editor.api.POST("/apis/{apiId}/endpoints", {
        params: { path: { apiId: api.id } },
        body: { topic, key, operations: ["subscribe"] },
      });
      assert.equal(response.status, 201, JSON.stringify(error));
      created.push(data!);
    }
    const newName = uniqueName("Renamed");
    const { data, response } = await editor.api.PATCH("/apis/{apiId}", {
      params: { path: { apiId: api.id } },
      body: { name: newName, version: "1.1.0" },
    });
    assert.equal(response.status, 200);
    assert.equal(data?.name, newName);
    assert.equal(data?.endpointCount, 2);
    for (const e of created) {
      const rows = await outboxRows(`endpoint/${e.id}`);
      assert.equal(rows.length, 2, "one record at create, one at the rename");
      assert.deepEqual((rows[1]!.recordValue as { api: unknown }).api, { id: api.id, name: newName, version: "1.1.0" });
    }
    const audit = await auditRows(api.id, "api.update");
    assert.equal(audit.length, 1);
    assert.equal((audit[0]!.before as { name: string }).name, api.name);
    assert.equal((audit[0]!.after as { name: string }).name, newName);

    // A change that keeps name and version emits nothing for the endpoints.
    await editor.api.PATCH("/apis/{apiId}", { params: { path: { apiId: api.id } }, body: { description: "new words", tags: ["x"] } });
    assert.equal((await outboxRows(`endpoint/${created[0]!.id}`)).length, 2);
  });

  test("an API created before versions had to be semantic keeps its version through an edit", async () => {
    const api = await newApi();
    await db.update(streamingApis).set({ version: "one" }).where(eq(streamingApis.id, api.id));
    const edited = await editor.api.PATCH("/apis/{apiId}", {
      params: { path: { apiId: api.id } },
      body: { version: "one", description: "still version one" },
    });
    assert.equal(edited.response.status, 200, JSON.stringify(edited.error));
    assert.equal(edited.data!.version, "one");
  });

  test("bad updates name the field; unknown APIs are 404; a rename onto another API is 409", async () => {
    const api = await newApi();
    const other = await newApi();
    const bad = await editor.api.PATCH("/apis/{apiId}", { params: { path: { apiId: api.id } }, body: { version: "has space" } });
    assert.equal(bad.response.status, 422);
    assert.deepEqual(fieldsOf(bad.error), ["version"]);
    const notSemantic = await editor.api.PATCH("/apis/{apiId}", { params: { path: { apiId: api.id } }, body: { version: "two" } });
    assert.equal(notSemantic.response.status, 422);
    assert.deepEqual(fieldsOf(notSemantic.error), ["version"]);
    const clash = await editor.api.PATCH("/apis/{apiId}", {
      params: { path: { apiId: api.id } },
      body: { name: other.name, version: other.version },
    });
    assert.equal(clash.response.status, 409);
    assert.deepEqual(fieldsOf(clash.error), ["version"]);
    const missing = await editor.api.PATCH("/apis/{apiId}", {
      params: { path: { apiId: "00000000-0000-4000-8000-000000000000" } },
      body: { description: "x" },
    });
    assert.equal(missing.response.status, 404);
    const owner = await editor.api.PATCH("/apis/{apiId}", { params: { path: { apiId: api.id } }, body: { ownerId: viewer.user.id } });
    assert.equal(owner.data?.owner?.email, viewer.user.email);
  });

  test("deleting an API tombstones all its endpoints and is audited", async () => {
    const api = await newApi();
    const { data: endpoint } = await editor.api.POST("/apis/{apiId}/endpoints", {
      params: { path: { apiId: api.id } },
      body: { topic, keyParam: "id", operations: ["subscribe", "publish"] },
    });
    const res = await editor.api.DELETE("/apis/{apiId}", { params: { path: { apiId: api.id } } });
    assert.equal(res.response.status, 204);
    const rows = await outboxRows(`endpoint/${endpoint!.id}`);
    assert.equal(rows.length, 2);
    assert.equal(rows[1]!.recordValue, null);
    const audit = await auditRows(api.id, "api.delete");
    assert.equal(audit.length, 1);
    assert.equal((audit[0]!.before as { endpointCount: number }).endpointCount, 1);
    assert.equal((await editor.api.GET("/apis/{apiId}", { params: { path: { apiId: api.id } } })).response.status, 404);
    assert.equal(
      (await editor.api.GET("/endpoints/{endpointId}", { params: { path: { endpointId: endpoint!.id } } })).response.status,
      404,
    );
    assert.equal((await editor.api.DELETE("/apis/{apiId}", { params: { path: { apiId: api.id } } })).response.status, 404);
  });
});
