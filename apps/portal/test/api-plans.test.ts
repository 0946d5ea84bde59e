// Plans through the management API against the real portal and PostgreSQL: the
// role matrix of the plan routes (fail closed), input naming its field, 409 for
// a duplicate name and a plan in use, grants under a plan, access requests with
// a plan (auto-approved as "system" at once), and the app record each change
// writes to the outbox with the app's limits, most generous plan first.
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";

import { appGrants, appLimits, auditLog, readPlanGrants } from "@sluice/db";
import { and, asc, eq } from "drizzle-orm";

import { auditRows, createTopic, outboxRows, uniqueName } from "./catalog-helpers";
import { apiClient, db, rawApi, seedUser, type SeededUser } from "./helpers";

const MISSING = "00000000-0000-4000-8000-000000000000";
const fields = (error: unknown) => ((error as { errors?: { field: string }[] })?.errors ?? []).map((e) => e.field).sort();

let editor: SeededUser;
let admin: SeededUser;
/** Owns the API: a viewer who may change its plans. */
let apiOwner: SeededUser;
/** Owns the apps. */
let requester: SeededUser;
let stranger: SeededUser;
let apiId: string;
let otherApiId: string;
let topic: string;
let otherTopic: string;
let quotes: { id: string; path: string };
let trades: { id: string; path: string };

type Limits = Partial<
  Record<
    "connections" | "subscriptionsPerConnection" | "publishPerSecond" | "deliveredPerSecond" | "deliveredBytesPerSecond",
    number | null
  >
>;

async function newPlan(body: { name?: string; limits?: Limits; autoApprove?: boolean } = {}, forApi = apiId, as = editor) {
  const { data, error } = await as.api.POST("/apis/{apiId}/plans", {
    params: { path: { apiId: forApi } },
    body: { name: uniqueName("plan").slice(0, 40), ...body },
  });
  assert.ok(data, JSON.stringify(error));
  return data;
}

async function newApp(owner: SeededUser = requester) {
  const { data } = await owner.api.POST("/apps", { body: { name: uniqueName("Planned app") } });
  return data!.id;
}

/** The app record the gateways get last (the outbox is published in id order). */
async function lastAppRecord(appId: string) {
  const rows = await outboxRows(`app/${appId}`);
  return rows.at(-1)?.recordValue as
    | { limits?: { plan: string; name: string; patterns: string[]; connections: number | null }[] }
    | undefined;
}

before(async () => {
  [editor, admin, apiOwner, requester, stranger, topic, otherTopic] = await Promise.all([
    seedUser("editor"),
    seedUser("admin"),
    seedUser("viewer", "plan-owner"),
    seedUser("viewer", "plan-requester"),
    seedUser("viewer", "plan-stranger"),
    createTopic("plans-quotes"),
    createTopic("plans-other"),
  ]);
  apiId = (await editor.api.POST("/apis", { body: { name: uniqueName("Plans API"), version: "1.0.0", ownerId: apiOwner.user.id } })).data!
    .id;
  otherApiId = (await editor.api.POST("/apis", { body: { name: uniqueName("Other plans API"), version: "1.0.0" } })).data!.id;
  const endpoint = async (id: string, body: Record<string, unknown>) => {
    const { data, error } = await editor.api.POST("/apis/{apiId}/endpoints", { params: { path: { apiId: id } }, body: body as never });
    assert.ok(data, JSON.stringify(error));
    return { id: data.id, path: data.path };
  };
  quotes = await endpoint(apiId, { topic, key: "quotes", operations: ["subscribe", "publish"] });
  trades = await endpoint(apiId, { topic, key: "trades", operations: ["subscribe"] });
  await endpoint(otherApiId, { topic: otherTopic, key: "elsewhere", operations: ["subscribe"] });
});

describe("plans", () => {
  test("create, read, change, delete; each step audited; limits left out are none", async () => {
    const plan = await newPlan({ name: "Free tier", limits: { connections: 1, publishPerSecond: 5 } });
    assert.deepEqual(plan.limits, {
      connections: 1,
      subscriptionsPerConnection: null,
      publishPerSecond: 5,
      deliveredPerSecond: null,
      deliveredBytesPerSecond: null,
    });
    assert.equal(plan.autoApprove, false);
    const listed = await stranger.api.GET("/apis/{apiId}/plans", { params: { path: { apiId } } });
    assert.ok(listed.data?.items.some((p) => p.id === plan.id));
    const changed = await apiOwner.api.PATCH("/apis/{apiId}/plans/{planId}", {
      params: { path: { apiId, planId: plan.id } },
      body: { limits: { connections: null, deliveredBytesPerSecond: 1048576 }, autoApprove: true },
    });
    assert.equal(changed.response.status, 200);
    assert.deepEqual(changed.data!.limits, {
      connections: null,
      subscriptionsPerConnection: null,
      publishPerSecond: 5,
      deliveredPerSecond: null,
      deliveredBytesPerSecond: 1048576,
    });
    assert.equal(changed.data!.autoApprove, true);
    const gone = await apiOwner.api.DELETE("/apis/{apiId}/plans/{planId}", { params: { path: { apiId, planId: plan.id } } });
    assert.equal(gone.response.status, 204);
    const actions = await db.select().from(auditLog).where(eq(auditLog.entityId, plan.id)).orderBy(asc(auditLog.id));
    assert.deepEqual(
      actions.map((a) => [a.action, a.actorUserId]),
      [
        ["plan.create", editor.user.id],
        ["plan.update", apiOwner.user.id],
        ["plan.delete", apiOwner.user.id],
      ],
    );
    const read = await editor.api.GET("/apis/{apiId}/plans/{planId}", { params: { path: { apiId, planId: plan.id } } });
    assert.equal(read.response.status, 404);
  });

  test("bad input names its field (422); a name the API has, in any case, is 409 naming name", async () => {
    const post = (body: unknown) =>
      rawApi(`/apis/${apiId}/plans`, {
        method: "POST",
        key: editor.key,
        body: JSON.stringify(body),
        headers: { "content-type": "application/json" },
      });
    const expect422 = async (body: unknown, field: string) => {
      const res = await post(body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.deepEqual(fields(await res.json()), [field]);
    };
    await expect422({ name: "" }, "name");
    await expect422({ name: "x".repeat(41) }, "name");
    await expect422({ name: "ok", limits: { connections: 0 } }, "limits.connections");
    await expect422({ name: "ok", limits: { publishPerSecond: 1.5 } }, "limits.publishPerSecond");
    await expect422({ name: "ok", limits: { deliveredBytesPerSecond: 2 ** 40 + 1 } }, "limits.deliveredBytesPerSecond");
    await expect422({ name: "ok", autoApprove: "yes" }, "autoApprove");
    const name = uniqueName("Gold").slice(0, 40);
    await newPlan({ name });
    const twice = await editor.api.POST("/apis/{apiId}/plans", { params: { path: { apiId } }, body: { name: name.toUpperCase() } });
    assert.equal(twice.response.status, 409);
    assert.deepEqual(fields(twice.error), ["name"]);
    // Another API may use the name.
    await newPlan({ name }, otherApiId);
  });

  test("role matrix: anonymous 401; everyone reads; the API's owner, editors and admins change; other viewers 403; no API 404", async () => {
    const plan = await newPlan();
    const path = { params: { path: { apiId, planId: plan.id } } };
    const anonymous = apiClient();
    assert.equal((await anonymous.GET("/apis/{apiId}/plans", { params: { path: { apiId } } })).response.status, 401);
    assert.equal((await anonymous.GET("/apis/{apiId}/plans/{planId}", path)).response.status, 401);
    assert.equal((await anonymous.POST("/apis/{apiId}/plans", { params: { path: { apiId } }, body: { name: "x" } })).response.status, 401);
    assert.equal((await anonymous.PATCH("/apis/{apiId}/plans/{planId}", { ...path, body: {} })).response.status, 401);
    assert.equal((await anonymous.DELETE("/apis/{apiId}/plans/{planId}", path)).response.status, 401);

    assert.equal((await stranger.api.GET("/apis/{apiId}/plans/{planId}", path)).response.status, 200);
    assert.equal(
      (await stranger.api.POST("/apis/{apiId}/plans", { params: { path: { apiId } }, body: { name: "x" } })).response.status,
      403,
    );
    assert.equal((await stranger.api.PATCH("/apis/{apiId}/plans/{planId}", { ...path, body: { name: "y" } })).response.status, 403);
    assert.equal((await stranger.api.DELETE("/apis/{apiId}/plans/{planId}", path)).response.status, 403);
    // The owner of one API is no one on another.
    assert.equal(
      (await apiOwner.api.POST("/apis/{apiId}/plans", { params: { path: { apiId: otherApiId } }, body: { name: "x" } })).response.status,
      403,
    );

    for (const who of [apiOwner, editor, admin]) {
      const created = await newPlan({}, apiId, who);
      const p = { params: { path: { apiId, planId: created.id } } };
      assert.equal((await who.api.PATCH("/apis/{apiId}/plans/{planId}", { ...p, body: { description: "changed" } })).response.status, 200);
      assert.equal((await who.api.DELETE("/apis/{apiId}/plans/{planId}", p)).response.status, 204);
    }
    assert.equal((await editor.api.GET("/apis/{apiId}/plans", { params: { path: { apiId: MISSING } } })).response.status, 404);
    assert.equal(
      (await editor.api.POST("/apis/{apiId}/plans", { params: { path: { apiId: MISSING } }, body: { name: "x" } })).response.status,
      404,
    );
    // A plan addressed through another API is not found.
    const elsewhere = { params: { path: { apiId: otherApiId, planId: plan.id } } };
    assert.equal((await editor.api.GET("/apis/{apiId}/plans/{planId}", elsewhere)).response.status, 404);
    assert.equal((await editor.api.DELETE("/apis/{apiId}/plans/{planId}", elsewhere)).response.status, 404);
  });
});

describe("grants under a plan and the app record", () => {
  test("a grant under a plan puts its pattern in the app's limits, most generous plan first; every change writes the record", async () => {
    const free = await newPlan({ name: uniqueName("free").slice(0, 40), limits: { connections: 1 } });
    const gold = await newPlan({ name: uniqueName("gold").slice(0, 40), limits: { connections: 50 } });
    const appId = await newApp();
    const grant = (endpointPattern: string, planId: string | null) =>
      editor.api.POST("/apps/{appId}/grants", {
        params: { path: { appId } },
        body: { endpointPattern, operations: ["subscribe"], planId },
      });

    const a = await grant(quotes.path, free.id);
    assert.equal(a.response.status, 201);
    assert.equal(a.data!.planId, free.id);
    assert.deepEqual(
      (await lastAppRecord(appId))?.limits?.map((l) => [l.plan, l.patterns, l.connections]),
      [[free.id, [quotes.path], 1]],
    );

    const b = await grant(trades.path, gold.id);
    assert.equal(b.response.status, 201);
    assert.deepEqual(
      (await lastAppRecord(appId))?.limits?.map((l) => [l.name, l.patterns]),
      [
        [gold.name, [trades.path]],
        [free.name, [quotes.path]],
      ],
    );

    // The plan's limits change: the app's record goes out with them.
    await editor.api.PATCH("/apis/{apiId}/plans/{planId}", {
      params: { path: { apiId, planId: free.id } },
      body: { limits: { connections: null } },
    });
    assert.deepEqual(
      (await lastAppRecord(appId))?.limits?.map((l) => [l.name, l.connections]),
      [
        [free.name, null],
        [gold.name, 50],
      ],
      "no connection limit is the most generous",
    );

    // Renaming the app keeps its limits in the record.
    await requester.api.PATCH("/apps/{appId}", { params: { path: { appId } }, body: { name: uniqueName("Renamed") } });
    assert.equal((await lastAppRecord(appId))?.limits?.length, 2);

    // The list shows each grant's plan and limits.
    const listed = await requester.api.GET("/apps/{appId}/grants", { params: { path: { appId } } });
    const quotesGrant = listed.data!.items.find((g) => g.endpointPattern === quotes.path)!;
    assert.equal(quotesGrant.plan?.name, free.name);
    assert.equal(quotesGrant.plan?.limits.connections, null);

    // A plan in use is not deleted: 409 naming the grant.
    const refused = await editor.api.DELETE("/apis/{apiId}/plans/{planId}", { params: { path: { apiId, planId: gold.id } } });
    assert.equal(refused.response.status, 409);
    assert.match(JSON.stringify(refused.error), new RegExp(trades.path.replace(/[/.-]/g, "\\$&")));

    // Moving the grant to no plan, then deleting the plan.
    const moved = await editor.api.PATCH("/apps/{appId}/grants/{grantId}", {
      params: { path: { appId, grantId: b.data!.id } },
      body: { planId: null },
    });
    assert.equal(moved.response.status, 200);
    assert.equal(moved.data!.planId, null);
    assert.deepEqual(
      (await lastAppRecord(appId))?.limits?.map((l) => l.plan),
      [free.id],
    );
    assert.equal((await auditRows(b.data!.id, "grant.update")).length, 1);
    assert.equal(
      (await editor.api.DELETE("/apis/{apiId}/plans/{planId}", { params: { path: { apiId, planId: gold.id } } })).response.status,
      204,
    );

    // Removing the last grant under a plan: the record has no limits any more.
    await editor.api.DELETE("/apps/{appId}/grants/{grantId}", { params: { path: { appId, grantId: a.data!.id } } });
    const last = await lastAppRecord(appId);
    assert.ok(last && !("limits" in last), JSON.stringify(last));
  });

  test("a plan must be of the one API the pattern reaches (422 naming planId); viewers cannot set plans", async () => {
    const plan = await newPlan();
    const appId = await newApp();
    const grant = (endpointPattern: string, planId: string, as = editor) =>
      as.api.POST("/apps/{appId}/grants", { params: { path: { appId } }, body: { endpointPattern, operations: ["subscribe"], planId } });
    for (const pattern of ["/*", `/${otherTopic}/elsewhere`, `/nothing-${Date.now()}/x`]) {
      const res = await grant(pattern, plan.id);
      assert.equal(res.response.status, 422, pattern);
      assert.deepEqual(fields(res.error), ["planId"]);
    }
    assert.deepEqual(fields((await grant(`/${topic}/*`, MISSING)).error), ["planId"]);
    assert.equal((await grant(`/${topic}/*`, plan.id, requester)).response.status, 403);
    assert.equal((await grant(`/${topic}/*`, plan.id)).response.status, 201);
    const rows = await db.select().from(appGrants).where(eq(appGrants.appId, appId));
    assert.deepEqual(
      rows.map((r) => r.planId),
      [plan.id],
    );
  });

  test("PATCH a grant: anonymous 401, viewers 403, editors and admins 200; another app's grant 404", async () => {
    const plan = await newPlan();
    const appId = await newApp();
    const { data: grant } = await editor.api.POST("/apps/{appId}/grants", {
      params: { path: { appId } },
      body: { endpointPattern: quotes.path, operations: ["subscribe"] },
    });
    const path = { params: { path: { appId, grantId: grant!.id } } };
    assert.equal((await apiClient().PATCH("/apps/{appId}/grants/{grantId}", { ...path, body: { planId: plan.id } })).response.status, 401);
    assert.equal(
      (await requester.api.PATCH("/apps/{appId}/grants/{grantId}", { ...path, body: { planId: plan.id } })).response.status,
      403,
    );
    assert.equal((await apiOwner.api.PATCH("/apps/{appId}/grants/{grantId}", { ...path, body: { planId: plan.id } })).response.status, 403);
    assert.equal((await editor.api.PATCH("/apps/{appId}/grants/{grantId}", { ...path, body: { planId: plan.id } })).response.status, 200);
    assert.equal((await admin.api.PATCH("/apps/{appId}/grants/{grantId}", { ...path, body: { planId: null } })).response.status, 200);
    const otherApp = await newApp();
    const elsewhere = { params: { path: { appId: otherApp, grantId: grant!.id } }, body: { planId: null } };
    assert.equal((await editor.api.PATCH("/apps/{appId}/grants/{grantId}", elsewhere)).response.status, 404);
  });

  test("deleting the API takes its plans off their grants and writes the apps' records without them", async () => {
    const api = (await editor.api.POST("/apis", { body: { name: uniqueName("Doomed API"), version: "1.0.0" } })).data!;
    const doomedTopic = await createTopic("plans-doomed");
    await editor.api.POST("/apis/{apiId}/endpoints", {
      params: { path: { apiId: api.id } },
      body: { topic: doomedTopic, key: "k", operations: ["subscribe"] } as never,
    });
    const plan = await newPlan({ limits: { connections: 3 } }, api.id);
    const appId = await newApp();
    const { data: grant } = await editor.api.POST("/apps/{appId}/grants", {
      params: { path: { appId } },
      body: { endpointPattern: `/${doomedTopic}/*`, operations: ["subscribe"], planId: plan.id },
    });
    assert.equal((await lastAppRecord(appId))?.limits?.[0]?.connections, 3);
    assert.equal((await editor.api.DELETE("/apis/{apiId}", { params: { path: { apiId: api.id } } })).response.status, 204);
    const [kept] = await db.select().from(appGrants).where(eq(appGrants.id, grant!.id));
    assert.equal(kept?.planId, null);
    const last = await lastAppRecord(appId);
    assert.ok(last && !("limits" in last));
  });
});

describe("concurrent changes", () => {
  test("grants added under plans and a plan edited at once: the record written last holds every committed grant and limit", async () => {
    const [one, two] = await Promise.all([newPlan({ limits: { connections: 1 } }), newPlan({ limits: { connections: 2 } })]);
    const appId = await newApp();
    // Exact paths under a parameterised endpoint of the API: each reaches it.
    const paramTopic = await createTopic("plans-parallel");
    const endpoint = await editor.api.POST("/apis/{apiId}/endpoints", {
      params: { path: { apiId } },
      body: { path: `/${paramTopic}/{id}`, operations: ["subscribe"] } as never,
    });
    assert.ok(endpoint.data, JSON.stringify(endpoint.error));
    const patterns = Array.from({ length: 6 }, (_, i) => `/${paramTopic}/parallel-${i}`);
    const results = await Promise.all([
      ...patterns.map((endpointPattern, i) =>
        (i % 2 ? admin : editor).api.POST("/apps/{appId}/grants", {
          params: { path: { appId } },
          body: { endpointPattern, operations: ["subscribe"], planId: i % 2 ? two.id : one.id },
        }),
      ),
      editor.api.PATCH("/apis/{apiId}/plans/{planId}", {
        params: { path: { apiId, planId: one.id } },
        body: { limits: { connections: 5 } },
      }),
    ]);
    assert.deepEqual(
      results.map((r) => r.response.status),
      [201, 201, 201, 201, 201, 201, 200],
    );
    const expected = appLimits((await readPlanGrants(db, [appId])).get(appId) ?? []);
    assert.deepEqual((await lastAppRecord(appId))?.limits, expected);
    assert.deepEqual(
      expected.map((l) => [l.plan, l.connections, l.patterns.length]),
      [
        [one.id, 5, 3],
        [two.id, 2, 3],
      ],
    );
  });
});

describe("access requests with plans", () => {
  test("an API with plans needs one (422 naming planId); a plan of another API is 422", async () => {
    await newPlan();
    const appId = await newApp();
    const ask = (planId?: string) =>
      requester.api.POST("/apps/{appId}/access-requests", {
        params: { path: { appId } },
        body: { apiId, endpointIds: [quotes.id], operations: ["subscribe"], justification: "dashboard", planId },
      });
    const without = await ask();
    assert.equal(without.response.status, 422);
    assert.deepEqual(fields(without.error), ["planId"]);
    const foreign = await newPlan({}, otherApiId);
    assert.deepEqual(fields((await ask(foreign.id)).error), ["planId"]);
    assert.deepEqual(fields((await ask(MISSING)).error), ["planId"]);
  });

  test("approving a request with a plan creates grants under it and writes the app's record", async () => {
    const plan = await newPlan({ limits: { connections: 2 } });
    const appId = await newApp();
    const { data: created } = await requester.api.POST("/apps/{appId}/access-requests", {
      params: { path: { appId } },
      body: { apiId, endpointIds: [quotes.id], operations: ["subscribe"], justification: "dashboard", planId: plan.id },
    });
    assert.equal(created!.state, "pending");
    assert.equal(created!.planName, plan.name);
    const approved = await apiOwner.api.POST("/access-requests/{requestId}/approve", { params: { path: { requestId: created!.id } } });
    assert.equal(approved.response.status, 200);
    assert.equal(approved.data!.request.autoApproved, false);
    assert.deepEqual(
      approved.data!.grants.created.map((g) => [g.endpointPattern, g.planId]),
      [[quotes.path, plan.id]],
    );
    assert.deepEqual(
      (await lastAppRecord(appId))?.limits?.map((l) => [l.plan, l.patterns, l.connections]),
      [[plan.id, [quotes.path], 2]],
    );
  });

  test("a request for an auto-approve plan is approved at once, by the portal (system), with grants under the plan", async () => {
    const plan = await newPlan({ limits: { connections: 1 }, autoApprove: true });
    const appId = await newApp();
    const res = await requester.api.POST("/apps/{appId}/access-requests", {
      params: { path: { appId } },
      body: { apiId, endpointIds: [quotes.id, trades.id], operations: ["subscribe"], justification: "dashboard", planId: plan.id },
    });
    assert.equal(res.response.status, 201);
    assert.equal(res.data!.state, "approved");
    assert.equal(res.data!.decidedBy, null);
    assert.equal(res.data!.autoApproved, true);
    assert.ok(res.data!.decidedAt);
    const audit = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.entityId, res.data!.id), eq(auditLog.action, "access_request.approve")));
    assert.deepEqual(
      audit.map((a) => [a.actor, a.actorUserId]),
      [["system", null]],
    );
    const grants = await db.select().from(appGrants).where(eq(appGrants.appId, appId)).orderBy(asc(appGrants.endpointPattern));
    assert.deepEqual(
      grants.map((g) => [g.endpointPattern, g.planId]),
      [
        [quotes.path, plan.id],
        [trades.path, plan.id],
      ].sort(),
    );
    assert.deepEqual((await lastAppRecord(appId))?.limits?.[0]?.patterns, [quotes.path, trades.path].sort());
    // A token can be minted for what was granted.
    const token = await requester.api.POST("/apps/{appId}/tokens", {
      params: { path: { appId } },
      body: { permissions: { sub: [quotes.path] }, lifetimeSeconds: 600 },
    });
    assert.equal(token.response.status, 201, JSON.stringify(token.error));
  });
});
