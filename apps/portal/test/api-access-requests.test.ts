// Access requests through the management API against the real portal and
// PostgreSQL: the role matrix of every route (fail closed), input naming its
// field, 409 for duplicates and for deciding twice, the grants an approval
// creates in its transaction, and the audit entry of every step.
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";

import { auditLog } from "@sluice/db";
import { and, asc, eq, inArray } from "drizzle-orm";

import { createTopic, uniqueName } from "./catalog-helpers";
import { apiClient, db, rawApi, seedUser, type SeededUser } from "./helpers";

const MISSING = "00000000-0000-4000-8000-000000000000";
const fields = (error: unknown) => ((error as { errors?: { field: string }[] })?.errors ?? []).map((e) => e.field).sort();

let editor: SeededUser;
let admin: SeededUser;
/** Owns the API (a viewer: owning an API is what makes them a decider). */
let apiOwner: SeededUser;
/** Owns the apps that ask. */
let requester: SeededUser;
/** A viewer with nothing to do with either side. */
let stranger: SeededUser;
let apiId: string;
let otherApiId: string;
let topic: string;
let paramTopic: string;
let quotes: { id: string; path: string };
let trades: { id: string; path: string };
let ticks: { id: string; path: string };
let foreign: { id: string; path: string };

async function newApp(owner: SeededUser = requester) {
  const { data } = await owner.api.POST("/apps", { body: { name: uniqueName("Requesting app") } });
  return data!.id;
}

async function request(
  appId: string,
  body: { endpointIds?: string[]; operations?: ("subscribe" | "publish")[]; justification?: string },
  as = requester,
) {
  return as.api.POST("/apps/{appId}/access-requests", {
    params: { path: { appId } },
    body: { apiId, operations: ["subscribe"], justification: "Dashboard for the trading floor", ...body },
  });
}

const byId = (requestId: string) => ({ params: { path: { requestId } } });

async function auditActions(entityId: string) {
  const rows = await db.select().from(auditLog).where(eq(auditLog.entityId, entityId)).orderBy(asc(auditLog.id));
  return rows;
}

before(async () => {
  [editor, admin, apiOwner, requester, stranger, topic, paramTopic] = await Promise.all([
    seedUser("editor"),
    seedUser("admin"),
    seedUser("viewer", "api-owner"),
    seedUser("viewer", "requester"),
    seedUser("viewer", "stranger"),
    createTopic("ar-quotes"),
    createTopic("ar-ticks"),
  ]);
  const api = await editor.api.POST("/apis", { body: { name: uniqueName("Access API"), version: "1.0.0", ownerId: apiOwner.user.id } });
  apiId = api.data!.id;
  const other = await editor.api.POST("/apis", { body: { name: uniqueName("Other API"), version: "1.0.0" } });
  otherApiId = other.data!.id;
  const endpoint = async (id: string, body: Record<string, unknown>) => {
    const { data, error } = await editor.api.POST("/apis/{apiId}/endpoints", { params: { path: { apiId: id } }, body: body as never });
    assert.ok(data, JSON.stringify(error));
    return { id: data.id, path: data.path };
  };
  quotes = await endpoint(apiId, { topic, key: "quotes", operations: ["subscribe", "publish"] });
  trades = await endpoint(apiId, { topic, key: "trades", operations: ["subscribe"] });
  ticks = await endpoint(apiId, { path: `/${paramTopic}/{symbol}`, operations: ["subscribe"] });
  foreign = await endpoint(otherApiId, { topic, key: "elsewhere", operations: ["subscribe"] });
});

describe("requesting access", () => {
  test("the app's owner asks for endpoints or the whole API; 201, the view, one audit entry", async () => {
    const appId = await newApp();
    const { data, response, error } = await request(appId, { endpointIds: [trades.id, quotes.id], operations: ["subscribe"] });
    assert.equal(response.status, 201, JSON.stringify(error));
    assert.equal(data!.state, "pending");
    assert.equal(data!.wholeApi, false);
    assert.deepEqual(
      data!.endpoints.map((e) => e.path),
      [quotes.path, trades.path].sort(),
    );
    assert.deepEqual(
      [data!.appId, data!.apiId, data!.requestedBy, data!.requestedByEmail],
      [appId, apiId, requester.user.id, requester.user.email],
    );
    assert.deepEqual([data!.decidedBy, data!.decidedAt, data!.reason], [null, null, null]);
    const audit = await auditActions(data!.id);
    assert.deepEqual(
      audit.map((a) => [a.action, a.entityType, a.actorUserId]),
      [["access_request.create", "access_request", requester.user.id]],
    );
    assert.deepEqual((audit[0]!.after as { endpoints: string[] }).endpoints, [quotes.path, trades.path].sort());

    const whole = await request(await newApp(), { operations: ["subscribe", "publish"] });
    assert.equal(whole.response.status, 201, JSON.stringify(whole.error));
    assert.deepEqual([whole.data!.wholeApi, whole.data!.endpoints, whole.data!.operations], [true, [], ["subscribe", "publish"]]);
  });

  test("bad input names its field (422)", async () => {
    const appId = await newApp();
    const raw = await rawApi(`/apps/${appId}/access-requests`, {
      method: "POST",
      key: requester.key,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ apiId: "nope", endpointIds: ["x"], operations: [], justification: "" }),
    });
    assert.equal(raw.status, 422);
    assert.deepEqual(fields(await raw.json()), ["apiId", "endpointIds.0", "justification", "operations"]);
    assert.deepEqual(fields((await request(appId, { justification: "x".repeat(501) })).error), ["justification"]);
    assert.deepEqual(fields((await request(appId, { justification: "   " })).error), ["justification"]);
    assert.deepEqual(fields((await request(appId, { endpointIds: [] })).error), ["endpointIds"]);
    assert.deepEqual(fields((await request(appId, { endpointIds: [quotes.id, quotes.id] })).error), ["endpointIds"]);
    // An endpoint of another API, an operation the endpoint does not allow, an API that does not exist.
    const wrongApi = await request(appId, { endpointIds: [quotes.id, foreign.id] });
    assert.equal(wrongApi.response.status, 422);
    assert.deepEqual(fields(wrongApi.error), ["endpointIds.1"]);
    const notAllowed = await request(appId, { endpointIds: [trades.id], operations: ["publish"] });
    assert.equal(notAllowed.response.status, 422);
    assert.deepEqual(fields(notAllowed.error), ["operations"]);
    const noApi = await requester.api.POST("/apps/{appId}/access-requests", {
      params: { path: { appId } },
      body: { apiId: MISSING, operations: ["subscribe"], justification: "why not" },
    });
    assert.deepEqual([noApi.response.status, fields(noApi.error)], [422, ["apiId"]]);
    // Nothing of it was stored.
    assert.deepEqual((await requester.api.GET("/apps/{appId}/access-requests", { params: { path: { appId } } })).data!.items, []);
  });

  test("a pending request overlapping another of the same app is 409; a different endpoint or another app is fine", async () => {
    const appId = await newApp();
    assert.equal((await request(appId, { endpointIds: [quotes.id] })).response.status, 201);
    const same = await request(appId, { endpointIds: [quotes.id, trades.id] });
    assert.deepEqual([same.response.status, fields(same.error)], [409, ["endpointIds"]]);
    const whole = await request(appId, {});
    assert.deepEqual([whole.response.status, fields(whole.error)], [409, ["apiId"]]);
    assert.equal((await request(appId, { endpointIds: [trades.id] })).response.status, 201);
    assert.equal((await request(await newApp(), { endpointIds: [quotes.id] })).response.status, 201);
    // Once withdrawn, the same target may be asked for again.
    const appTwo = await newApp();
    const first = await request(appTwo, {});
    assert.equal((await request(appTwo, { endpointIds: [ticks.id] })).response.status, 409);
    await requester.api.POST("/access-requests/{requestId}/withdraw", byId(first.data!.id));
    assert.equal((await request(appTwo, {})).response.status, 201);
  });

  test("role matrix: anonymous 401, a viewer not owning the app 404, the owner, editors and admins 201", async () => {
    const appId = await newApp();
    const anonymous = await apiClient().POST("/apps/{appId}/access-requests", {
      params: { path: { appId } },
      body: { apiId, operations: ["subscribe"], justification: "x" },
    });
    assert.equal(anonymous.response.status, 401);
    assert.equal((await request(appId, {}, stranger)).response.status, 404);
    assert.equal((await request(appId, {}, apiOwner)).response.status, 404, "deciding for the API is no right to ask for someone's app");
    assert.equal((await request(appId, { endpointIds: [quotes.id] })).response.status, 201);
    assert.equal((await request(appId, { endpointIds: [trades.id] }, editor)).response.status, 201);
    assert.equal((await request(appId, { endpointIds: [ticks.id] }, admin)).response.status, 201);
    assert.equal((await request(MISSING, {}, admin)).response.status, 404);
  });
});

describe("the inbox", () => {
  test("deciders see what they decide: editors and admins all, the API's owner their APIs, others nothing", async () => {
    const appId = await newApp();
    const mine = await request(appId, { endpointIds: [quotes.id] });
    const onOther = await requester.api.POST("/apps/{appId}/access-requests", {
      params: { path: { appId } },
      body: { apiId: otherApiId, operations: ["subscribe"], justification: "the other one" },
    });
    assert.equal(onOther.response.status, 201, JSON.stringify(onOther.error));
    const ids = async (as: SeededUser, query: Record<string, string> = {}) =>
      (await as.api.GET("/access-requests", { params: { query: { limit: 200, ...query } } })).data!.items.map((r) => r.id);

    const ownerSees = await ids(apiOwner, { state: "pending" });
    assert.ok(ownerSees.includes(mine.data!.id));
    assert.ok(!ownerSees.includes(onOther.data!.id), "the API's owner sees only requests for their APIs");
    for (const decider of [editor, admin]) {
      const all = await ids(decider, { state: "pending", appId });
      assert.deepEqual(all.sort(), [mine.data!.id, onOther.data!.id].sort());
      assert.deepEqual(await ids(decider, { appId, apiId: otherApiId }), [onOther.data!.id]);
    }
    assert.deepEqual(await ids(stranger), []);
    assert.deepEqual(await ids(requester, { appId }), [], "asking is no right to the inbox; the app has its own list");
    assert.equal((await apiClient().GET("/access-requests", {})).response.status, 401);
    const badState = await rawApi("/access-requests?state=open", { key: editor.key });
    assert.equal(badState.status, 422);
    assert.deepEqual(fields(await badState.json()), ["state"]);
  });

  test("keyset pagination walks every request once", async () => {
    const appId = await newApp();
    for (const e of [quotes, trades, ticks]) await request(appId, { endpointIds: [e.id] });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const { data } = await editor.api.GET("/access-requests", { params: { query: { appId, limit: 2, cursor } } });
      seen.push(...data!.items.map((r) => r.id));
      cursor = data!.nextCursor ?? undefined;
    } while (cursor);
    assert.equal(seen.length, 3);
    assert.equal(new Set(seen).size, 3);
  });
});

describe("deciding", () => {
  test("approve: the grants in the same transaction, audit with the grants, a token can be minted, deciding again is 409", async () => {
    const appId = await newApp();
    const asked = await request(appId, { endpointIds: [quotes.id, ticks.id], operations: ["subscribe"] });
    const id = asked.data!.id;

    assert.equal((await apiClient().POST("/access-requests/{requestId}/approve", byId(id))).response.status, 401);
    assert.equal((await stranger.api.POST("/access-requests/{requestId}/approve", byId(id))).response.status, 404);
    assert.equal((await requester.api.POST("/access-requests/{requestId}/approve", byId(id))).response.status, 403);
    assert.equal((await apiOwner.api.POST("/access-requests/{requestId}/approve", byId(MISSING))).response.status, 404);

    const { data, response, error } = await apiOwner.api.POST("/access-requests/{requestId}/approve", byId(id));
    assert.equal(response.status, 200, JSON.stringify(error));
    assert.deepEqual(
      [data!.request.state, data!.request.decidedBy, data!.request.decidedByEmail],
      ["approved", apiOwner.user.id, apiOwner.user.email],
    );
    assert.ok(data!.request.decidedAt);
    // An exact endpoint is granted its path, a parameterised one its topic's wildcard.
    assert.deepEqual(
      data!.grants.created.map((g) => [g.endpointPattern, g.operations, g.grantedBy]).sort(),
      [
        [quotes.path, ["subscribe"], apiOwner.user.id],
        [`/${paramTopic}/*`, ["subscribe"], apiOwner.user.id],
      ].sort(),
    );
    const grants = (await requester.api.GET("/apps/{appId}/grants", { params: { path: { appId } } })).data!.items;
    assert.deepEqual(grants.map((g) => g.endpointPattern).sort(), [quotes.path, `/${paramTopic}/*`].sort());

    const audit = await auditActions(id);
    assert.deepEqual(
      audit.map((a) => [a.action, a.actorUserId]),
      [
        ["access_request.create", requester.user.id],
        ["access_request.approve", apiOwner.user.id],
      ],
    );
    const after = audit[1]!.after as { state: string; grants: { created: { endpointPattern: string }[] } };
    assert.equal(after.state, "approved");
    assert.equal(after.grants.created.length, 2);
    const grantAudit = await db
      .select()
      .from(auditLog)
      .where(
        and(
          eq(auditLog.action, "grant.create"),
          inArray(
            auditLog.entityId,
            data!.grants.created.map((g) => g.id),
          ),
        ),
      );
    assert.equal(grantAudit.length, 2);

    const minted = await requester.api.POST("/apps/{appId}/tokens", {
      params: { path: { appId } },
      body: { permissions: { sub: [quotes.path, `/${paramTopic}/AAPL`] }, lifetimeSeconds: 3600 },
    });
    assert.equal(minted.response.status, 201, JSON.stringify(minted.error));

    for (const decider of [apiOwner, editor]) {
      const again = await decider.api.POST("/access-requests/{requestId}/approve", byId(id));
      assert.deepEqual([again.response.status, fields(again.error)], [409, ["state"]]);
    }
    const reject = await admin.api.POST("/access-requests/{requestId}/reject", { ...byId(id), body: { reason: "too late" } });
    assert.equal(reject.response.status, 409);
    assert.equal((await requester.api.POST("/access-requests/{requestId}/withdraw", byId(id))).response.status, 409);
  });

  test("a whole-API approval grants every endpoint what it allows; grants the app has are kept or extended, not an error", async () => {
    const appId = await newApp();
    // Already there: quotes with subscribe only (gains publish), and a wildcard that covers the ticks.
    await editor.api.POST("/apps/{appId}/grants", {
      params: { path: { appId } },
      body: { endpointPattern: quotes.path, operations: ["subscribe"] },
    });
    await editor.api.POST("/apps/{appId}/grants", {
      params: { path: { appId } },
      body: { endpointPattern: `/${paramTopic}/*`, operations: ["subscribe", "publish"] },
    });
    const asked = await request(appId, { operations: ["subscribe", "publish"] });
    const { data, response, error } = await editor.api.POST("/access-requests/{requestId}/approve", byId(asked.data!.id));
    assert.equal(response.status, 200, JSON.stringify(error));
    assert.deepEqual(
      data!.grants.created.map((g) => [g.endpointPattern, g.operations]),
      [[trades.path, ["subscribe"]]],
    );
    assert.deepEqual(
      data!.grants.extended.map((g) => [g.endpointPattern, g.operations]),
      [[quotes.path, ["subscribe", "publish"]]],
    );
    assert.deepEqual(data!.grants.alreadyCovered, [`/${paramTopic}/*`]);
    assert.equal(data!.request.decidedByEmail, editor.user.email);
  });

  test("reject needs a reason; the requester sees state, decider, time and reason on the app's list", async () => {
    const appId = await newApp();
    const asked = await request(appId, { endpointIds: [trades.id] });
    const id = asked.data!.id;
    const noReason = await rawApi(`/access-requests/${id}/reject`, {
      method: "POST",
      key: editor.key,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ reason: " " }),
    });
    assert.equal(noReason.status, 422);
    assert.deepEqual(fields(await noReason.json()), ["reason"]);
    assert.deepEqual(
      fields((await editor.api.POST("/access-requests/{requestId}/reject", { ...byId(id), body: { reason: "r".repeat(501) } })).error),
      ["reason"],
    );
    assert.equal(
      (await requester.api.POST("/access-requests/{requestId}/reject", { ...byId(id), body: { reason: "mine" } })).response.status,
      403,
    );
    assert.equal(
      (await stranger.api.POST("/access-requests/{requestId}/reject", { ...byId(id), body: { reason: "no" } })).response.status,
      404,
    );

    const rejected = await apiOwner.api.POST("/access-requests/{requestId}/reject", {
      ...byId(id),
      body: { reason: "Use the public feed instead" },
    });
    assert.equal(rejected.response.status, 200, JSON.stringify(rejected.error));

    const { data } = await requester.api.GET("/apps/{appId}/access-requests", { params: { path: { appId } } });
    const seen = data!.items.find((r) => r.id === id)!;
    assert.deepEqual(
      [seen.state, seen.reason, seen.decidedBy, seen.decidedByEmail],
      ["rejected", "Use the public feed instead", apiOwner.user.id, apiOwner.user.email],
    );
    assert.ok(seen.decidedAt);
    assert.deepEqual((await requester.api.GET("/apps/{appId}/grants", { params: { path: { appId } } })).data!.items, []);
    assert.deepEqual(
      (await auditActions(id)).map((a) => a.action),
      ["access_request.create", "access_request.reject"],
    );
    assert.equal((await editor.api.POST("/access-requests/{requestId}/approve", byId(id))).response.status, 409);
  });

  test("withdraw: the app's side only, pending only", async () => {
    const appId = await newApp();
    const id = (await request(appId, { endpointIds: [quotes.id] })).data!.id;
    assert.equal((await apiClient().POST("/access-requests/{requestId}/withdraw", byId(id))).response.status, 401);
    assert.equal((await stranger.api.POST("/access-requests/{requestId}/withdraw", byId(id))).response.status, 404);
    assert.equal((await apiOwner.api.POST("/access-requests/{requestId}/withdraw", byId(id))).response.status, 403);
    const { data, response } = await requester.api.POST("/access-requests/{requestId}/withdraw", byId(id));
    assert.equal(response.status, 200);
    assert.deepEqual([data!.state, data!.decidedBy, data!.reason], ["withdrawn", requester.user.id, null]);
    assert.equal((await requester.api.POST("/access-requests/{requestId}/withdraw", byId(id))).response.status, 409);
    assert.equal((await apiOwner.api.POST("/access-requests/{requestId}/approve", byId(id))).response.status, 409);
    assert.deepEqual(
      (await auditActions(id)).map((a) => [a.action, a.actorUserId]),
      [
        ["access_request.create", requester.user.id],
        ["access_request.withdraw", requester.user.id],
      ],
    );
    // Editors and admins withdraw for any app.
    const other = (await request(appId, { endpointIds: [trades.id] })).data!.id;
    assert.equal((await admin.api.POST("/access-requests/{requestId}/withdraw", byId(other))).response.status, 200);
  });
});

describe("the role matrix of the decisions", () => {
  test("approve and reject: anonymous 401, a stranger 404, the requester 403; the API's owner, editors and admins decide", async () => {
    const appId = await newApp();
    const fresh = async (endpoint: { id: string }) => (await request(appId, { endpointIds: [endpoint.id] })).data!.id;
    for (const [i, decider] of [apiOwner, editor, admin].entries()) {
      const toApprove = await fresh([quotes, trades, ticks][i]!);
      const approveAs = (as?: SeededUser) => (as ? as.api : apiClient()).POST("/access-requests/{requestId}/approve", byId(toApprove));
      assert.deepEqual(
        [(await approveAs()).response.status, (await approveAs(stranger)).response.status, (await approveAs(requester)).response.status],
        [401, 404, 403],
      );
      assert.equal((await approveAs(decider)).response.status, 200);

      const toReject = await fresh([quotes, trades, ticks][i]!);
      const rejectAs = (as?: SeededUser) =>
        (as ? as.api : apiClient()).POST("/access-requests/{requestId}/reject", { ...byId(toReject), body: { reason: "not now" } });
      assert.deepEqual(
        [(await rejectAs()).response.status, (await rejectAs(stranger)).response.status, (await rejectAs(requester)).response.status],
        [401, 404, 403],
      );
      const { data, response } = await rejectAs(decider);
      assert.equal(response.status, 200);
      assert.deepEqual([data!.state, data!.decidedBy, data!.reason], ["rejected", decider.user.id, "not now"]);
    }
  });

  test("withdraw: the owner, editors and admins; the API's owner 403, a stranger 404, anonymous 401", async () => {
    const appId = await newApp();
    for (const [i, side] of [requester, editor, admin].entries()) {
      const id = (await request(appId, { endpointIds: [[quotes, trades, ticks][i]!.id] })).data!.id;
      const withdrawAs = (as?: SeededUser) => (as ? as.api : apiClient()).POST("/access-requests/{requestId}/withdraw", byId(id));
      assert.deepEqual(
        [(await withdrawAs()).response.status, (await withdrawAs(stranger)).response.status, (await withdrawAs(apiOwner)).response.status],
        [401, 404, 403],
      );
      const { data, response } = await withdrawAs(side);
      assert.equal(response.status, 200);
      assert.deepEqual([data!.state, data!.decidedBy], ["withdrawn", side.user.id]);
    }
  });
});

describe("concurrent calls", () => {
  test("two decisions at once: exactly one wins, the other is 409; two overlapping requests at once: one is 409", async () => {
    const appId = await newApp();
    const id = (await request(appId, { endpointIds: [quotes.id] })).data!.id;
    const decisions = await Promise.all([
      apiOwner.api.POST("/access-requests/{requestId}/approve", byId(id)),
      editor.api.POST("/access-requests/{requestId}/reject", { ...byId(id), body: { reason: "racing" } }),
      admin.api.POST("/access-requests/{requestId}/approve", byId(id)),
    ]);
    assert.deepEqual(decisions.map((d) => d.response.status).sort(), [200, 409, 409]);
    const decided = (await auditActions(id)).filter((a) => a.action !== "access_request.create");
    assert.equal(decided.length, 1, "one decision is audited");

    const other = await newApp();
    const asks = await Promise.all([request(other, {}), request(other, { endpointIds: [trades.id] })]);
    assert.deepEqual(asks.map((a) => a.response.status).sort(), [201, 409]);
  });
});

describe("reading requests", () => {
  test("GET one and an app's list: the app's side and the API's owner; anyone else 404, anonymous 401", async () => {
    const appId = await newApp();
    const id = (await request(appId, { endpointIds: [quotes.id] })).data!.id;
    for (const reader of [requester, apiOwner, editor, admin]) {
      const { response, data } = await reader.api.GET("/access-requests/{requestId}", byId(id));
      assert.equal(response.status, 200);
      assert.equal(data!.justification, "Dashboard for the trading floor");
    }
    assert.equal((await stranger.api.GET("/access-requests/{requestId}", byId(id))).response.status, 404);
    assert.equal((await apiClient().GET("/access-requests/{requestId}", byId(id))).response.status, 401);
    assert.equal((await rawApi("/access-requests/nope", { key: editor.key })).status, 422);

    const list = (as: SeededUser | undefined) =>
      (as ? as.api : apiClient()).GET("/apps/{appId}/access-requests", { params: { path: { appId } } });
    assert.deepEqual(
      (await list(requester)).data!.items.map((r) => r.id),
      [id],
    );
    assert.deepEqual(
      (await list(editor)).data!.items.map((r) => r.id),
      [id],
    );
    assert.deepEqual(
      (await list(admin)).data!.items.map((r) => r.id),
      [id],
    );
    assert.equal((await list(stranger)).response.status, 404);
    assert.equal((await list(apiOwner)).response.status, 404, "the app's list belongs to the app's side; deciders use the inbox");
    assert.equal((await list(undefined)).response.status, 401);
  });
});
