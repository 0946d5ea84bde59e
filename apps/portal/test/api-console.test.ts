// The live console's tokens (POST /apis/{apiId}/endpoints/{endpointId}/console-token):
// one endpoint each, ten minutes, subscribe for every reader of the catalog and
// publish only for editors, issued for the console app, which takes no grants,
// no other tokens and cannot be deleted.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { apps, auditLog, issuedTokens } from "@sluice/db";
import { and, eq } from "drizzle-orm";
import { createRemoteJWKSet, jwtVerify } from "jose";

import { createTopic, fieldsOf, uniqueName } from "./catalog-helpers";
import { db, portalUrl, rawApi, seedUser, sessionFor, type SeededUser } from "./helpers";

const jwks = createRemoteJWKSet(new URL(`${portalUrl}/.well-known/jwks.json`), { cacheMaxAge: 0, cooldownDuration: 0 });
const verify = (token: string) => jwtVerify(token, jwks, { issuer: "sluice", audience: "sluice-gateway", algorithms: ["ES256"] });

async function setUp() {
  const editor = await seedUser("editor");
  const topic = await createTopic("console", 2);
  const { data: api } = await editor.api.POST("/apis", { body: { name: uniqueName("Console test"), version: "1.0.0" } });
  const make = async (body: Record<string, unknown>) => {
    const { data, response, error } = await editor.api.POST("/apis/{apiId}/endpoints", {
      params: { path: { apiId: api!.id } },
      body: { topic, ...body } as never,
    });
    assert.equal(response.status, 201, JSON.stringify(error));
    return data!;
  };
  const param = await make({ keyParam: "vehicle", operations: ["subscribe", "publish"] });
  const exact = await make({ key: "BRK.B", operations: ["subscribe"] });
  const publishOnly = await make({ key: "inbox", operations: ["publish"] });
  return { editor, topic, apiId: api!.id, param, exact, publishOnly };
}

const mint = (user: SeededUser, apiId: string, endpointId: string) =>
  user.api.POST("/apis/{apiId}/endpoints/{endpointId}/console-token", { params: { path: { apiId, endpointId } } });

describe("console tokens", async () => {
  const fx = await setUp();

  test("a viewer gets a ten-minute subscribe token for the whole parameterised endpoint, issued for the console app", async () => {
    const viewer = await seedUser("viewer");
    const { data, response, error } = await mint(viewer, fx.apiId, fx.param.id);
    assert.equal(response.status, 201, JSON.stringify(error));
    assert.deepEqual(data!.permissions, { sub: [`/${fx.topic}/*`], pub: [], all: [] });
    assert.equal(data!.canSubscribe, true);
    assert.equal(data!.canPublish, false);
    assert.match(data!.gatewayUrl, /^wss?:\/\/.+\/ws$/);
    const { payload } = await verify(data!.token);
    assert.equal(payload.exp! - payload.iat!, 600);
    assert.deepEqual(payload.permissions, data!.permissions);
    const [consoleApp] = await db.select().from(apps).where(eq(apps.kind, "console"));
    assert.equal(payload.sub, consoleApp!.id);
    const [row] = await db.select().from(issuedTokens).where(eq(issuedTokens.jti, data!.jti));
    assert.equal(row!.issuedBy, viewer.user.id);
    assert.equal(row!.appId, consoleApp!.id);
    assert.match(row!.description, /^Live console: /);
    const audit = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.entityId, data!.jti), eq(auditLog.action, "token.mint")));
    assert.equal(audit.length, 1);
    assert.equal(audit[0]!.actorUserId, viewer.user.id);
  });

  test("an editor also gets publish where the endpoint allows it; an exact endpoint is named exactly", async () => {
    const both = await mint(fx.editor, fx.apiId, fx.param.id);
    assert.deepEqual(both.data!.permissions, { sub: [], pub: [], all: [`/${fx.topic}/*`] });
    assert.equal(both.data!.canPublish, true);
    const exact = await mint(fx.editor, fx.apiId, fx.exact.id);
    assert.deepEqual(exact.data!.permissions, { sub: [`/${fx.topic}/BRK.B`], pub: [], all: [] });
    assert.equal(exact.data!.canPublish, false);
    const pubOnly = await mint(fx.editor, fx.apiId, fx.publishOnly.id);
    assert.deepEqual(pubOnly.data!.permissions, { sub: [], pub: [`/${fx.topic}/inbox`], all: [] });
    assert.equal(pubOnly.data!.canSubscribe, false);
  });

  test("a viewer gets nothing for a publish-only endpoint; unknown ids are 404, bad ids 422, strangers 401", async () => {
    const viewer = await seedUser("viewer");
    const before = await db.select().from(issuedTokens).where(eq(issuedTokens.issuedBy, viewer.user.id));
    assert.equal((await mint(viewer, fx.apiId, fx.publishOnly.id)).response.status, 403);
    assert.equal((await mint(viewer, fx.apiId, "00000000-0000-4000-8000-000000000000")).response.status, 404);
    assert.equal((await mint(viewer, "00000000-0000-4000-8000-000000000000", fx.param.id)).response.status, 404);
    const bad = await rawApi(`/apis/${fx.apiId}/endpoints/not-a-uuid/console-token`, { method: "POST", key: viewer.key });
    assert.equal(bad.status, 422);
    assert.deepEqual(fieldsOf(await bad.json()), ["endpointId"]);
    assert.equal((await rawApi(`/apis/${fx.apiId}/endpoints/${fx.param.id}/console-token`, { method: "POST" })).status, 401);
    assert.deepEqual(await db.select().from(issuedTokens).where(eq(issuedTokens.issuedBy, viewer.user.id)), before);
  });

  test("a signed-in browser needs the session's CSRF token", async () => {
    const viewer = await seedUser("viewer");
    const { cookie, csrfToken } = await sessionFor(viewer.user.id);
    const url = `${portalUrl}/api/v1/apis/${fx.apiId}/endpoints/${fx.param.id}/console-token`;
    assert.equal((await fetch(url, { method: "POST", headers: { cookie } })).status, 403);
    assert.equal((await fetch(url, { method: "POST", headers: { cookie, "x-csrf-token": csrfToken } })).status, 201);
  });

  test("the console app takes no grants and no other tokens, cannot be deleted, and is hidden from viewers", async () => {
    const admin = await seedUser("admin");
    const viewer = await seedUser("viewer");
    const [consoleApp] = await db.select().from(apps).where(eq(apps.kind, "console"));
    const path = { params: { path: { appId: consoleApp!.id } } };
    const grant = await admin.api.POST("/apps/{appId}/grants", { ...path, body: { endpointPattern: "/*", operations: ["subscribe"] } });
    assert.equal(grant.response.status, 409);
    assert.deepEqual(fieldsOf(grant.error as never), ["appId"]);
    const token = await admin.api.POST("/apps/{appId}/tokens", { ...path, body: { permissions: { sub: ["/x/y"] }, lifetimeSeconds: 600 } });
    assert.equal(token.response.status, 409);
    assert.equal((await admin.api.DELETE("/apps/{appId}", path)).response.status, 409);
    assert.equal((await admin.api.GET("/apps/{appId}", path)).data!.kind, "console");
    assert.equal((await viewer.api.GET("/apps/{appId}", path)).response.status, 404);
  });
});
