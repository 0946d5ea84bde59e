// Tokens through the management API: minted tokens verify with the portal's own
// JWKS and carry exactly what was asked; nothing beyond the app's grants; revoke
// one and revoke all reach the outbox as CATALOG.md says.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";

import { auditLog, catalogOutbox, issuedTokens } from "@sluice/db";
import { and, asc, eq } from "drizzle-orm";
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from "jose";

import { db, portalUrl, rawApi, seedUser, type SeededUser } from "./helpers";

const jwks = createRemoteJWKSet(new URL(`${portalUrl}/.well-known/jwks.json`), { cacheMaxAge: 0, cooldownDuration: 0 });
const verify = (token: string) => jwtVerify(token, jwks, { issuer: "sluice", audience: "sluice-gateway", algorithms: ["ES256"] });
const MAX_LIFETIME = Number(process.env.SLUICE_TOKEN_MAX_LIFETIME_SECONDS || 90 * 86400);
const fields = (error: unknown) => ((error as { errors?: { field: string }[] })?.errors ?? []).map((e) => e.field).sort();
const outboxFor = (key: string) =>
  db
    .select({ recordKey: catalogOutbox.recordKey, recordValue: catalogOutbox.recordValue })
    .from(catalogOutbox)
    .where(eq(catalogOutbox.recordKey, key))
    .orderBy(asc(catalogOutbox.id));

/** An app of `owner` with grants added by an editor. */
async function appWithGrants(owner: SeededUser, grants: { endpointPattern: string; operations: ("subscribe" | "publish")[] }[]) {
  const editor = await seedUser("editor");
  const app = (await owner.api.POST("/apps", { body: { name: `Tokens ${randomUUID().slice(0, 8)}` } })).data!;
  for (const body of grants)
    assert.equal((await editor.api.POST("/apps/{appId}/grants", { params: { path: { appId: app.id } }, body })).response.status, 201);
  return app;
}

const standardGrants = [
  { endpointPattern: "/prices/*", operations: ["subscribe"] as ("subscribe" | "publish")[] },
  { endpointPattern: "/orders/eu", operations: ["subscribe", "publish"] as ("subscribe" | "publish")[] },
];

describe("minting", () => {
  test("the owner mints a token that verifies against the JWKS and carries exactly the requested permissions", async () => {
    const owner = await seedUser("viewer");
    const app = await appWithGrants(owner, standardGrants);
    const permissions = { sub: ["/prices/AAPL", "/prices/fx/*"], pub: ["/orders/eu"], all: ["/orders/eu"] };
    const { data, response } = await owner.api.POST("/apps/{appId}/tokens", {
      params: { path: { appId: app.id } },
      body: { permissions, lifetimeSeconds: 3600, description: "ci" },
    });
    assert.equal(response.status, 201, JSON.stringify(data));
    const { payload, protectedHeader } = await verify(data!.token);
    assert.equal(protectedHeader.alg, "ES256");
    assert.equal(protectedHeader.kid, data!.tokenInfo.kid);
    assert.deepEqual(Object.keys(payload).sort(), ["aud", "exp", "iat", "iss", "jti", "permissions", "sub"]);
    assert.equal(payload.sub, app.id);
    assert.equal(payload.jti, data!.tokenInfo.jti);
    assert.equal(payload.exp! - payload.iat!, 3600);
    assert.deepEqual(payload.permissions, permissions);
    assert.deepEqual(data!.tokenInfo.permissions, permissions);
    assert.equal(data!.tokenInfo.status, "active");
    assert.equal(new Date(data!.tokenInfo.expiresAt).getTime(), payload.exp! * 1000);

    // Only metadata is stored; the audit entry names the token but never holds it.
    const [row] = await db.select().from(issuedTokens).where(eq(issuedTokens.jti, data!.tokenInfo.jti));
    assert.equal(row!.appId, app.id);
    assert.equal(row!.issuedBy, owner.user.id);
    const audit = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.entityId, data!.tokenInfo.jti), eq(auditLog.action, "token.mint")));
    assert.equal(audit.length, 1);
    assert.equal(audit[0]!.entityType, "token");
    assert.ok(!JSON.stringify(audit[0]).includes(data!.token.split(".")[2]!));
  });

  test("a token asking for more than the app's grants is refused, naming the entry and the missing grant", async () => {
    const owner = await seedUser("viewer");
    const app = await appWithGrants(owner, standardGrants);
    const before = await db.select().from(issuedTokens).where(eq(issuedTokens.appId, app.id));
    const res = await owner.api.POST("/apps/{appId}/tokens", {
      params: { path: { appId: app.id } },
      body: { permissions: { sub: ["/prices/AAPL", "/*"], pub: ["/prices/AAPL"], all: ["/prices/x"] }, lifetimeSeconds: 600 },
    });
    assert.equal(res.response.status, 422);
    assert.deepEqual(fields(res.error), ["permissions.all.0", "permissions.pub.0", "permissions.sub.1"]);
    assert.match(JSON.stringify(res.error), /no grant to publish \/prices\/AAPL/);
    assert.deepEqual(await db.select().from(issuedTokens).where(eq(issuedTokens.appId, app.id)), before);
  });

  test("bad input names every field: permissions, lifetime, description", async () => {
    const owner = await seedUser("viewer");
    const app = await appWithGrants(owner, standardGrants);
    const mint = (body: unknown) =>
      rawApi(`/apps/${app.id}/tokens`, {
        method: "POST",
        key: owner.key,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const cases: [unknown, string[]][] = [
      [{ permissions: {}, lifetimeSeconds: 600 }, ["permissions"]],
      [{ permissions: { sub: [] }, lifetimeSeconds: 600 }, ["permissions"]],
      [{ permissions: { sub: ["/prices/a*"] }, lifetimeSeconds: 600 }, ["permissions.sub.0"]],
      [{ permissions: { sub: "/prices/AAPL" }, lifetimeSeconds: 600 }, ["permissions.sub"]],
      [{ permissions: { admin: ["/*"] }, lifetimeSeconds: 600 }, ["permissions"]],
      [{ permissions: { sub: ["/prices/AAPL"] }, lifetimeSeconds: 59 }, ["lifetimeSeconds"]],
      [{ permissions: { sub: ["/prices/AAPL"] }, lifetimeSeconds: MAX_LIFETIME + 1 }, ["lifetimeSeconds"]],
      [{ permissions: { sub: ["/prices/AAPL"] }, lifetimeSeconds: 60.5 }, ["lifetimeSeconds"]],
      [{ permissions: { sub: ["/prices/AAPL"] } }, ["lifetimeSeconds"]],
      [{ permissions: { sub: ["/prices/AAPL"] }, lifetimeSeconds: 600, description: "d".repeat(201) }, ["description"]],
    ];
    for (const [body, expected] of cases) {
      const res = await mint(body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.deepEqual([...new Set(fields(await res.json()))], expected, JSON.stringify(body));
    }
    // The bounds themselves are accepted.
    assert.equal((await mint({ permissions: { sub: ["/prices/AAPL"] }, lifetimeSeconds: 60 })).status, 201);
    assert.equal((await mint({ permissions: { sub: ["/prices/AAPL"] }, lifetimeSeconds: MAX_LIFETIME })).status, 201);
  });

  test("a viewer cannot mint for someone else's app (404); an editor can mint for any app", async () => {
    const owner = await seedUser("viewer");
    const stranger = await seedUser("viewer");
    const editor = await seedUser("editor");
    const app = await appWithGrants(owner, standardGrants);
    const body = { permissions: { sub: ["/prices/AAPL"] }, lifetimeSeconds: 600 };
    const denied = await stranger.api.POST("/apps/{appId}/tokens", { params: { path: { appId: app.id } }, body });
    assert.equal(denied.response.status, 404);
    assert.equal((await stranger.api.GET("/apps/{appId}/tokens", { params: { path: { appId: app.id } } })).response.status, 404);
    const ok = await editor.api.POST("/apps/{appId}/tokens", { params: { path: { appId: app.id } }, body });
    assert.equal(ok.response.status, 201);
    assert.equal((await verify(ok.data!.token)).payload.sub, app.id);
    assert.equal(
      (
        await rawApi(`/apps/${app.id}/tokens`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        })
      ).status,
      401,
    );
  });
});

describe("listing and revoking", () => {
  test("tokens are listed newest first with status, paginated", async () => {
    const owner = await seedUser("viewer");
    const app = await appWithGrants(owner, standardGrants);
    const jtis: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { data } = await owner.api.POST("/apps/{appId}/tokens", {
        params: { path: { appId: app.id } },
        body: { permissions: { sub: [`/prices/t${i}`] }, lifetimeSeconds: 600 },
      });
      jtis.push(data!.tokenInfo.jti);
    }
    const page1 = await owner.api.GET("/apps/{appId}/tokens", { params: { path: { appId: app.id }, query: { limit: 2 } } });
    assert.deepEqual(
      page1.data!.items.map((t) => t.jti),
      [jtis[2], jtis[1]],
    );
    assert.deepEqual(page1.data!.items[0]!.permissions, { sub: ["/prices/t2"], pub: [], all: [] });
    assert.equal(page1.data!.items[0]!.status, "active");
    const page2 = await owner.api.GET("/apps/{appId}/tokens", {
      params: { path: { appId: app.id }, query: { limit: 2, cursor: page1.data!.nextCursor! } },
    });
    assert.deepEqual(
      page2.data!.items.map((t) => t.jti),
      [jtis[0]],
    );
    assert.equal(page2.data!.nextCursor, null);
    const bad = await owner.api.GET("/apps/{appId}/tokens", { params: { path: { appId: app.id }, query: { cursor: "eyJ4IjoxfQ" } } });
    assert.deepEqual(fields(bad.error), ["cursor"]);
  });

  test("revoking one token writes revoked/<jti> exactly as CATALOG.md; twice is harmless; a stranger gets 404", async () => {
    const owner = await seedUser("viewer");
    const stranger = await seedUser("viewer");
    const app = await appWithGrants(owner, standardGrants);
    const { data } = await owner.api.POST("/apps/{appId}/tokens", {
      params: { path: { appId: app.id } },
      body: { permissions: { sub: ["/prices/AAPL"] }, lifetimeSeconds: 600 },
    });
    const jti = data!.tokenInfo.jti;
    const exp = decodeJwt(data!.token).exp!;
    const path = { appId: app.id, jti };
    assert.equal((await stranger.api.DELETE("/apps/{appId}/tokens/{jti}", { params: { path } })).response.status, 404);
    assert.equal((await owner.api.DELETE("/apps/{appId}/tokens/{jti}", { params: { path } })).response.status, 204);
    assert.equal((await owner.api.DELETE("/apps/{appId}/tokens/{jti}", { params: { path } })).response.status, 204);
    assert.deepEqual(await outboxFor(`revoked/${jti}`), [
      { recordKey: `revoked/${jti}`, recordValue: { v: 1, jti, app: app.id, expires_at: exp } },
    ]);
    const list = await owner.api.GET("/apps/{appId}/tokens", { params: { path: { appId: app.id } } });
    assert.equal(list.data!.items[0]!.status, "revoked");
    assert.ok(list.data!.items[0]!.revokedAt);
    const audit = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.entityId, jti), eq(auditLog.action, "token.revoke")));
    assert.equal(audit.length, 1);
    assert.equal(
      (await owner.api.DELETE("/apps/{appId}/tokens/{jti}", { params: { path: { appId: app.id, jti: randomUUID() } } })).response.status,
      404,
    );
    assert.deepEqual(
      fields((await owner.api.DELETE("/apps/{appId}/tokens/{jti}", { params: { path: { appId: app.id, jti: "x" } } })).error),
      ["jti"],
    );
  });

  test("revoke all: a token minted just before is revoked by iat, one minted just after is not (whole seconds)", async () => {
    const owner = await seedUser("viewer");
    const app = await appWithGrants(owner, standardGrants);
    const mint = async () =>
      (
        await owner.api.POST("/apps/{appId}/tokens", {
          params: { path: { appId: app.id } },
          body: { permissions: { sub: ["/prices/AAPL"] }, lifetimeSeconds: 600 },
        })
      ).data!;
    const before = await mint();
    const res = await owner.api.POST("/apps/{appId}/tokens/revoke-all", { params: { path: { appId: app.id } } });
    assert.equal(res.response.status, 200);
    assert.equal(res.data!.revoked, 1);
    const after = await mint();

    const notBefore = new Date(res.data!.tokensNotBefore).getTime() / 1000;
    assert.ok(Number.isInteger(notBefore));
    // The gateway's rule: revoked when iat < tokens_not_before.
    assert.ok(decodeJwt(before.token).iat! < notBefore, "the earlier token is revoked");
    assert.ok(decodeJwt(after.token).iat! >= notBefore, "the later token is accepted");
    await verify(after.token);

    const records = await outboxFor(`app/${app.id}`);
    assert.deepEqual(records.at(-1)!.recordValue, { v: 1, id: app.id, name: app.name, tokens_not_before: notBefore });
    const list = await owner.api.GET("/apps/{appId}/tokens", { params: { path: { appId: app.id } } });
    assert.deepEqual(
      list.data!.items.map((t) => [t.jti, t.status]),
      [
        [after.tokenInfo.jti, "active"],
        [before.tokenInfo.jti, "revoked"],
      ],
    );
    const audit = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.entityId, app.id), eq(auditLog.action, "app.revoke_tokens")));
    assert.equal(audit.length, 1);
    assert.equal(
      (await (await seedUser("viewer")).api.POST("/apps/{appId}/tokens/revoke-all", { params: { path: { appId: app.id } } })).response
        .status,
      404,
    );
  });

  test("the token header names the kid the JWKS serves", async () => {
    const owner = await seedUser("viewer");
    const app = await appWithGrants(owner, standardGrants);
    const { data } = await owner.api.POST("/apps/{appId}/tokens", {
      params: { path: { appId: app.id } },
      body: { permissions: { all: ["/orders/eu"] }, lifetimeSeconds: 600 },
    });
    const res = await fetch(`${portalUrl}/.well-known/jwks.json`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /json/);
    const body = (await res.json()) as { keys: { kid: string; alg: string; kty: string; d?: string }[] };
    const key = body.keys.find((k) => k.kid === decodeProtectedHeader(data!.token).kid);
    assert.ok(key);
    assert.equal(key.alg, "ES256");
    assert.ok(
      body.keys.every((k) => k.d === undefined),
      "no private key material",
    );
  });
});
