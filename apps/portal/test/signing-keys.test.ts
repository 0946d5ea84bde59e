// Signing keys: generated at first start, private keys only encrypted at rest,
// rotation keeps old public keys in the JWKS while their tokens live, and a wrong
// SLUICE_SECRET_KEY cannot sign (fails closed). Install-level rules run on a
// scratch database through the domain functions; the rest through the API.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, test } from "node:test";

import { apps, appGrants, auditLog, catalogOutbox, issuedTokens, signingKeys, users, type Database } from "@sluice/db";
import { asc, eq, like } from "drizzle-orm";
import { createLocalJWKSet, createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from "jose";

import { actorFromUser, authorize } from "../lib/auth/actor";
import { secretKey } from "../lib/config";
import { open } from "../lib/crypto/secret-box";
import { ensureSigningKey } from "../lib/domain/signing-keys/ensure-signing-key";
import { expireRetiredSigningKeys } from "../lib/domain/signing-keys/expire-retired-signing-keys";
import { getJwks } from "../lib/domain/signing-keys/list-signing-keys";
import { rotateSigningKey } from "../lib/domain/signing-keys/rotate-signing-key";
import { mintToken } from "../lib/domain/tokens/mint-token";
import { AppError } from "../lib/errors";
import { db, portalUrl, scratchDatabase, seedUser } from "./helpers";

const keyRecords = (database: Database) =>
  database
    .select({ recordKey: catalogOutbox.recordKey, recordValue: catalogOutbox.recordValue })
    .from(catalogOutbox)
    .where(like(catalogOutbox.recordKey, "key/%"))
    .orderBy(asc(catalogOutbox.id));

/** A scratch install with an admin, an app and a grant on /t/*. */
async function install(t: Parameters<typeof scratchDatabase>[0]) {
  const scratch = await scratchDatabase(t);
  const [user] = await scratch.insert(users).values({ email: "admin@example.com", role: "admin", passwordHash: "x" }).returning();
  const actor = authorize(actorFromUser(user!, { kind: "session" }), "admin");
  const [app] = await scratch.insert(apps).values({ name: "App", ownerId: user!.id }).returning();
  await scratch.insert(appGrants).values({ appId: app!.id, endpointPattern: "/t/*", operations: ["subscribe"] });
  const mint = (encryptionKey?: Buffer) =>
    mintToken({
      db: scratch,
      actor,
      appId: app!.id,
      input: { permissions: { sub: ["/t/a"] }, lifetimeSeconds: 60, description: "" },
      encryptionKey,
    });
  return { scratch, actor, app: app!, mint };
}

describe("signing keys on a fresh install", () => {
  test("first start generates one ES256 key (system), stored encrypted, published as key/<kid>", async (t) => {
    const { scratch } = await install(t);
    const first = await ensureSigningKey({ db: scratch });
    assert.equal(first.kind, "created");
    assert.match(first.kid, /^\d{4}-\d{2}-\d{2}-[0-9a-f]{8}$/);
    assert.deepEqual(await ensureSigningKey({ db: scratch }), { kind: "exists", kid: first.kid });

    const [row] = await scratch.select().from(signingKeys);
    assert.equal(row!.algorithm, "ES256");
    assert.equal(row!.status, "active");
    const privateJwk = JSON.parse(open(row!.privateKeyCiphertext, row!.kid, secretKey())) as { d: string; x: string };
    assert.ok(privateJwk.d.length > 20);
    assert.ok(!row!.privateKeyCiphertext.includes(privateJwk.d), "the ciphertext does not contain the private key");
    assert.ok(!row!.privateKeyCiphertext.includes('"d"'));
    assert.match(row!.privateKeyCiphertext, /^v1\./);
    const jwk = row!.publicJwk as Record<string, string>;
    assert.deepEqual(Object.keys(jwk).sort(), ["crv", "kty", "x", "y"]);
    assert.equal(jwk.x, privateJwk.x);

    assert.deepEqual(await keyRecords(scratch), [
      { recordKey: `key/${first.kid}`, recordValue: { v: 1, kid: first.kid, alg: "ES256", jwk, status: "active" } },
    ]);
    const audit = await scratch.select().from(auditLog).where(eq(auditLog.entityId, first.kid));
    assert.deepEqual(
      audit.map((a) => [a.action, a.actor, a.actorUserId]),
      [["signing_key.create", "system", null]],
    );
    assert.equal((audit[0]!.after as { privateKeyCiphertext: string }).privateKeyCiphertext, "[redacted]");
  });

  test("a wrong SLUICE_SECRET_KEY cannot sign: minting fails closed and stores nothing", async (t) => {
    const { scratch, mint } = await install(t);
    await ensureSigningKey({ db: scratch });
    await assert.rejects(mint(randomBytes(32)), (err: unknown) => {
      assert.ok(err instanceof AppError);
      assert.equal(err.status, 500);
      assert.match(err.message, /cannot be decrypted with SLUICE_SECRET_KEY/);
      return true;
    });
    assert.equal((await scratch.select().from(issuedTokens)).length, 0);
    const ok = await mint();
    assert.ok(ok.token);
  });

  test("rotation retires the old key, keeps it in the JWKS while its tokens live, then tombstones it once", async (t) => {
    const { scratch, actor, mint } = await install(t);
    const old = await ensureSigningKey({ db: scratch });
    const oldToken = await mint();
    const rotated = await rotateSigningKey({ db: scratch, actor });
    assert.equal(rotated.retired!.kid, old.kid);
    assert.deepEqual(rotated.expired, []);
    const newToken = await mint();
    assert.equal(decodeProtectedHeader(newToken.token).kid, rotated.active.kid);

    const jwks = await getJwks({ db: scratch });
    assert.deepEqual(jwks.keys.map((k) => k.kid).sort(), [old.kid, rotated.active.kid].sort());
    const local = createLocalJWKSet(jwks as Parameters<typeof createLocalJWKSet>[0]);
    for (const m of [oldToken, newToken]) await jwtVerify(m.token, local, { issuer: "sluice", audience: "sluice-gateway" });

    const records = await keyRecords(scratch);
    const [oldRow] = await scratch.select().from(signingKeys).where(eq(signingKeys.kid, old.kid));
    const [newRow] = await scratch.select().from(signingKeys).where(eq(signingKeys.kid, rotated.active.kid));
    assert.deepEqual(records.slice(1), [
      { recordKey: `key/${old.kid}`, recordValue: { v: 1, kid: old.kid, alg: "ES256", jwk: oldRow!.publicJwk, status: "retired" } },
      {
        recordKey: `key/${rotated.active.kid}`,
        recordValue: { v: 1, kid: rotated.active.kid, alg: "ES256", jwk: newRow!.publicJwk, status: "active" },
      },
    ]);

    // Once the old key's last token has expired, it leaves the JWKS and is tombstoned exactly once.
    const later = new Date(oldToken.tokenInfo.expiresAt.getTime() + 1000);
    assert.deepEqual(
      (await getJwks({ db: scratch, now: later })).keys.map((k) => k.kid),
      [rotated.active.kid],
    );
    assert.deepEqual(await scratch.transaction((tx) => expireRetiredSigningKeys({ tx, now: later })), [old.kid]);
    assert.deepEqual(await scratch.transaction((tx) => expireRetiredSigningKeys({ tx, now: later })), []);
    assert.deepEqual((await keyRecords(scratch)).at(-1), { recordKey: `key/${old.kid}`, recordValue: null });
    const audit = await scratch.select().from(auditLog).where(eq(auditLog.action, "signing_key.expire"));
    assert.deepEqual(
      audit.map((a) => a.entityId),
      [old.kid],
    );
  });

  test("rotating with no tokens on the old key tombstones it at once", async (t) => {
    const { scratch, actor } = await install(t);
    const old = await ensureSigningKey({ db: scratch });
    const rotated = await rotateSigningKey({ db: scratch, actor });
    assert.deepEqual(rotated.expired, [old.kid]);
    assert.deepEqual(
      (await keyRecords(scratch)).map((r) => [r.recordKey, (r.recordValue as { status?: string } | null)?.status ?? null]),
      [
        [`key/${old.kid}`, "active"],
        [`key/${old.kid}`, "retired"],
        [`key/${rotated.active.kid}`, "active"],
        [`key/${old.kid}`, null],
      ],
    );
    assert.deepEqual(
      (await getJwks({ db: scratch })).keys.map((k) => k.kid),
      [rotated.active.kid],
    );
  });
});

describe("signing keys through the API", () => {
  test("only admins list and rotate", async () => {
    for (const role of ["viewer", "editor"] as const) {
      const { api } = await seedUser(role);
      assert.equal((await api.GET("/signing-keys")).response.status, 403, role);
      assert.equal((await api.POST("/signing-keys/rotate")).response.status, 403, role);
    }
  });

  test("rotation on the running portal keeps the old kid in the JWKS while its token lives", async () => {
    const admin = await seedUser("admin");
    const editor = await seedUser("editor");
    const app = (await admin.api.POST("/apps", { body: { name: `Rotate ${Date.now()}` } })).data!;
    await editor.api.POST("/apps/{appId}/grants", {
      params: { path: { appId: app.id } },
      body: { endpointPattern: "/r/*", operations: ["subscribe"] },
    });
    const minted = await admin.api.POST("/apps/{appId}/tokens", {
      params: { path: { appId: app.id } },
      body: { permissions: { sub: ["/r/x"] }, lifetimeSeconds: 600 },
    });
    const oldKid = minted.data!.tokenInfo.kid;

    const rotated = await admin.api.POST("/signing-keys/rotate");
    assert.equal(rotated.response.status, 201);
    assert.equal(rotated.data!.retired!.kid, oldKid);
    const newKid = rotated.data!.active.kid;
    assert.notEqual(newKid, oldKid);

    const list = await admin.api.GET("/signing-keys");
    const byKid = new Map(list.data!.items.map((k) => [k.kid, k]));
    assert.equal(byKid.get(newKid)!.state, "active");
    assert.equal(byKid.get(oldKid)!.state, "retired");
    assert.ok(byKid.get(oldKid)!.unexpiredTokens >= 1);
    assert.equal(list.data!.items.filter((k) => k.status === "active").length, 1);

    const jwks = createRemoteJWKSet(new URL(`${portalUrl}/.well-known/jwks.json`), { cacheMaxAge: 0, cooldownDuration: 0 });
    await jwtVerify(minted.data!.token, jwks, { issuer: "sluice", audience: "sluice-gateway" });
    const fresh = await admin.api.POST("/apps/{appId}/tokens", {
      params: { path: { appId: app.id } },
      body: { permissions: { sub: ["/r/x"] }, lifetimeSeconds: 600 },
    });
    assert.equal(fresh.data!.tokenInfo.kid, newKid);
    await jwtVerify(fresh.data!.token, jwks, { issuer: "sluice", audience: "sluice-gateway" });

    const audit = await db.select().from(auditLog).where(eq(auditLog.entityId, oldKid));
    assert.ok(audit.some((a) => a.action === "signing_key.retire" && a.actorUserId === admin.user.id));
  });
});
