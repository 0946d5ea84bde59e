// Apps and grants through the management API: who may do what, bad input naming
// its field, and the outbox + audit rows each change writes.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";

import { auditLog, catalogOutbox } from "@sluice/db";
import { and, asc, eq, inArray } from "drizzle-orm";

import { db, rawApi, seedUser } from "./helpers";

const unique = (label: string) => `${label} ${randomUUID().slice(0, 8)}`;
const MISSING = "00000000-0000-4000-8000-000000000000";

async function outboxFor(key: string) {
  return db
    .select({ recordKey: catalogOutbox.recordKey, recordValue: catalogOutbox.recordValue })
    .from(catalogOutbox)
    .where(eq(catalogOutbox.recordKey, key))
    .orderBy(asc(catalogOutbox.id));
}
async function auditFor(entityId: string, actions?: string[]) {
  return db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.entityId, entityId), actions ? inArray(auditLog.action, actions) : undefined))
    .orderBy(asc(auditLog.id));
}
const fields = (error: unknown) => ((error as { errors?: { field: string }[] })?.errors ?? []).map((e) => e.field).sort();

describe("apps", () => {
  test("any signed-in user creates an app they own; outbox app/<id> and audit entry", async () => {
    const viewer = await seedUser("viewer");
    const name = unique("Dashboard");
    const { data, response } = await viewer.api.POST("/apps", { body: { name, description: "Trading floor screens" } });
    assert.equal(response.status, 201);
    assert.equal(data!.name, name);
    assert.equal(data!.ownerId, viewer.user.id);
    assert.equal(data!.ownerEmail, viewer.user.email);
    assert.equal(data!.tokensNotBefore, null);

    assert.deepEqual(await outboxFor(`app/${data!.id}`), [
      { recordKey: `app/${data!.id}`, recordValue: { v: 1, id: data!.id, name, tokens_not_before: null } },
    ]);
    const audit = await auditFor(data!.id);
    assert.deepEqual(
      audit.map((a) => [a.action, a.entityType, a.actorUserId]),
      [["app.create", "app", viewer.user.id]],
    );
  });

  test("bad input names every field; a duplicate name for the same owner is 409", async () => {
    const viewer = await seedUser("viewer");
    const bad = await rawApi("/apps", {
      method: "POST",
      key: viewer.key,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "", description: "x".repeat(2001), ownerId: "nope" }),
    });
    assert.equal(bad.status, 422);
    assert.deepEqual(fields(await bad.json()), ["description", "name", "ownerId"]);
    const long = await viewer.api.POST("/apps", { body: { name: "n".repeat(101) } });
    assert.deepEqual(fields(long.error), ["name"]);

    const name = unique("Twice");
    assert.equal((await viewer.api.POST("/apps", { body: { name } })).response.status, 201);
    const again = await viewer.api.POST("/apps", { body: { name } });
    assert.equal(again.response.status, 409);
    assert.deepEqual(fields(again.error), ["name"]);
    // Another owner may use the same name.
    assert.equal((await (await seedUser("viewer")).api.POST("/apps", { body: { name } })).response.status, 201);
  });

  test("only editors and admins create apps for someone else, and only for existing users", async () => {
    const viewer = await seedUser("viewer");
    const other = await seedUser("viewer");
    const editor = await seedUser("editor");
    const refused = await viewer.api.POST("/apps", { body: { name: unique("Theirs"), ownerId: other.user.id } });
    assert.equal(refused.response.status, 403);
    assert.deepEqual(fields(refused.error), ["ownerId"]);
    const ok = await editor.api.POST("/apps", { body: { name: unique("Theirs"), ownerId: other.user.id } });
    assert.equal(ok.response.status, 201);
    assert.equal(ok.data!.ownerId, other.user.id);
    const ghost = await editor.api.POST("/apps", { body: { name: unique("Ghost"), ownerId: MISSING } });
    assert.equal(ghost.response.status, 422);
    assert.deepEqual(fields(ghost.error), ["ownerId"]);
  });

  test("viewers list and see only their own apps; editors see all; search and keyset pagination", async () => {
    const viewer = await seedUser("viewer");
    const other = await seedUser("viewer");
    const editor = await seedUser("editor");
    const tag = randomUUID().slice(0, 8);
    for (const n of ["a", "b", "c"]) await viewer.api.POST("/apps", { body: { name: `paged ${tag} ${n}` } });
    const theirs = (await other.api.POST("/apps", { body: { name: `paged ${tag} other` } })).data!;

    const page1 = await viewer.api.GET("/apps", { params: { query: { q: tag, limit: 2 } } });
    assert.deepEqual(
      page1.data!.items.map((a) => a.name),
      [`paged ${tag} a`, `paged ${tag} b`],
    );
    assert.ok(page1.data!.nextCursor);
    const page2 = await viewer.api.GET("/apps", { params: { query: { q: tag, limit: 2, cursor: page1.data!.nextCursor! } } });
    assert.deepEqual(
      page2.data!.items.map((a) => a.name),
      [`paged ${tag} c`],
    );
    assert.equal(page2.data!.nextCursor, null);

    const all = await editor.api.GET("/apps", { params: { query: { q: tag } } });
    assert.equal(all.data!.items.length, 4);

    const hidden = await viewer.api.GET("/apps/{appId}", { params: { path: { appId: theirs.id } } });
    assert.equal(hidden.response.status, 404);
    assert.equal((await editor.api.GET("/apps/{appId}", { params: { path: { appId: theirs.id } } })).response.status, 200);

    const badLimit = await viewer.api.GET("/apps", { params: { query: { limit: 0 } } });
    assert.deepEqual(fields(badLimit.error), ["limit"]);
    const badCursor = await viewer.api.GET("/apps", { params: { query: { cursor: "garbage" } } });
    assert.deepEqual(fields(badCursor.error), ["cursor"]);
    const badId = await viewer.api.GET("/apps/{appId}", { params: { path: { appId: "42" } } });
    assert.deepEqual(fields(badId.error), ["appId"]);
  });

  test("owner updates; another viewer cannot; only editors change the owner; outbox carries the new name", async () => {
    const owner = await seedUser("viewer");
    const stranger = await seedUser("viewer");
    const editor = await seedUser("editor");
    const app = (await owner.api.POST("/apps", { body: { name: unique("Before") } })).data!;
    const renamed = unique("After");
    const res = await owner.api.PATCH("/apps/{appId}", {
      params: { path: { appId: app.id } },
      body: { name: renamed, description: "new" },
    });
    assert.equal(res.response.status, 200);
    assert.equal(res.data!.name, renamed);
    assert.equal(res.data!.description, "new");
    const records = await outboxFor(`app/${app.id}`);
    assert.deepEqual(records.at(-1)!.recordValue, { v: 1, id: app.id, name: renamed, tokens_not_before: null });
    const audit = await auditFor(app.id, ["app.update"]);
    assert.equal(audit.length, 1);
    assert.equal((audit[0]!.before as { name: string }).name, app.name);
    assert.equal((audit[0]!.after as { name: string }).name, renamed);

    assert.equal(
      (await stranger.api.PATCH("/apps/{appId}", { params: { path: { appId: app.id } }, body: { name: "mine now" } })).response.status,
      404,
    );
    const handOver = await owner.api.PATCH("/apps/{appId}", { params: { path: { appId: app.id } }, body: { ownerId: stranger.user.id } });
    assert.equal(handOver.response.status, 403);
    const bad = await owner.api.PATCH("/apps/{appId}", { params: { path: { appId: app.id } }, body: { name: "" } });
    assert.deepEqual(fields(bad.error), ["name"]);
    const moved = await editor.api.PATCH("/apps/{appId}", { params: { path: { appId: app.id } }, body: { ownerId: stranger.user.id } });
    assert.equal(moved.data!.ownerId, stranger.user.id);
    assert.equal((await stranger.api.GET("/apps/{appId}", { params: { path: { appId: app.id } } })).response.status, 200);
  });

  test("delete: owner or editor; writes the app tombstone; a stranger gets 404", async () => {
    const owner = await seedUser("viewer");
    const stranger = await seedUser("viewer");
    const app = (await owner.api.POST("/apps", { body: { name: unique("Doomed") } })).data!;
    assert.equal((await stranger.api.DELETE("/apps/{appId}", { params: { path: { appId: app.id } } })).response.status, 404);
    assert.equal((await owner.api.DELETE("/apps/{appId}", { params: { path: { appId: app.id } } })).response.status, 204);
    assert.equal((await owner.api.GET("/apps/{appId}", { params: { path: { appId: app.id } } })).response.status, 404);
    const records = await outboxFor(`app/${app.id}`);
    assert.deepEqual(records.at(-1), { recordKey: `app/${app.id}`, recordValue: null });
    assert.deepEqual(
      (await auditFor(app.id, ["app.delete"])).map((a) => a.action),
      ["app.delete"],
    );
    assert.equal((await owner.api.DELETE("/apps/{appId}", { params: { path: { appId: MISSING } } })).response.status, 404);
  });
});

describe("grants", () => {
  test("editors add and remove grants, canonicalised; viewers read them but cannot change them", async () => {
    const owner = await seedUser("viewer");
    const editor = await seedUser("editor");
    const app = (await owner.api.POST("/apps", { body: { name: unique("Granted") } })).data!;
    const path = { appId: app.id };

    const denied = await owner.api.POST("/apps/{appId}/grants", {
      params: { path },
      body: { endpointPattern: "/prices/*", operations: ["subscribe"] },
    });
    assert.equal(denied.response.status, 403);

    const added = await editor.api.POST("/apps/{appId}/grants", {
      params: { path },
      body: { endpointPattern: "/pr%69ces/*", operations: ["subscribe"] },
    });
    assert.equal(added.response.status, 201);
    assert.equal(added.data!.endpointPattern, "/prices/*");
    assert.deepEqual(added.data!.operations, ["subscribe"]);
    assert.equal(added.data!.grantedBy, editor.user.id);
    const exact = await editor.api.POST("/apps/{appId}/grants", {
      params: { path },
      body: { endpointPattern: "/orders/eu", operations: ["publish", "subscribe"] },
    });
    assert.deepEqual(exact.data!.operations, ["subscribe", "publish"]);

    const dup = await editor.api.POST("/apps/{appId}/grants", {
      params: { path },
      body: { endpointPattern: "/prices/*", operations: ["publish"] },
    });
    assert.equal(dup.response.status, 409);
    assert.deepEqual(fields(dup.error), ["endpointPattern"]);

    const list = await owner.api.GET("/apps/{appId}/grants", { params: { path } });
    assert.deepEqual(
      list.data!.items.map((g) => g.endpointPattern),
      ["/orders/eu", "/prices/*"],
    );

    const audit = await auditFor(added.data!.id);
    assert.deepEqual(
      audit.map((a) => [a.action, a.entityType]),
      [["grant.create", "app_grant"]],
    );

    assert.equal(
      (await owner.api.DELETE("/apps/{appId}/grants/{grantId}", { params: { path: { appId: app.id, grantId: added.data!.id } } })).response
        .status,
      403,
    );
    assert.equal(
      (await editor.api.DELETE("/apps/{appId}/grants/{grantId}", { params: { path: { appId: app.id, grantId: added.data!.id } } })).response
        .status,
      204,
    );
    assert.equal(
      (await editor.api.DELETE("/apps/{appId}/grants/{grantId}", { params: { path: { appId: app.id, grantId: added.data!.id } } })).response
        .status,
      404,
    );
    assert.deepEqual(
      (await auditFor(added.data!.id)).map((a) => a.action),
      ["grant.create", "grant.delete"],
    );
    assert.deepEqual(
      (await owner.api.GET("/apps/{appId}/grants", { params: { path } })).data!.items.map((g) => g.endpointPattern),
      ["/orders/eu"],
    );
  });

  test("bad patterns and operations name their field, with the gateway's rules", async () => {
    const editor = await seedUser("editor");
    const app = (await editor.api.POST("/apps", { body: { name: unique("Strict") } })).data!;
    const path = { appId: app.id };
    for (const endpointPattern of [
      "",
      "prices/*",
      "/prices",
      "/prices/a*",
      "/*/x",
      "/bad topic/*",
      "/prices/a/{symbol}",
      "/prices/{symbol}/x",
      "/prices/a%2Fb",
    ]) {
      const res = await editor.api.POST("/apps/{appId}/grants", { params: { path }, body: { endpointPattern, operations: ["subscribe"] } });
      assert.equal(res.response.status, 422, endpointPattern);
      assert.deepEqual(fields(res.error), ["endpointPattern"], endpointPattern);
    }
    const param = await editor.api.POST("/apps/{appId}/grants", {
      params: { path },
      body: { endpointPattern: "/prices/a/{symbol}", operations: ["subscribe"] },
    });
    assert.match(JSON.stringify(param.error), /a parameter must be the whole key/);
    for (const operations of [[], ["delete"], ["subscribe", "subscribe"]]) {
      const res = await rawApi(`/apps/${app.id}/grants`, {
        method: "POST",
        key: editor.key,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ endpointPattern: "/a/b", operations }),
      });
      assert.equal(res.status, 422, JSON.stringify(operations));
      assert.ok(
        fields(await res.json()).every((f: string) => f.startsWith("operations")),
        JSON.stringify(operations),
      );
    }
    const stranger = await seedUser("viewer");
    assert.equal((await stranger.api.GET("/apps/{appId}/grants", { params: { path } })).response.status, 404);
    assert.equal(
      (
        await editor.api.POST("/apps/{appId}/grants", {
          params: { path: { appId: MISSING } },
          body: { endpointPattern: "/a/b", operations: ["subscribe"] },
        })
      ).response.status,
      404,
    );
  });
});
