// The rule for which signing keys and revocations belong in the catalog
// (src/catalog-membership.ts), on a scratch database of the test stack's
// PostgreSQL (DATABASE_URL): the bridge's republish reads the catalog through
// readCatalogRecords and the portal's key expiry uses signingKeyInCatalog.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { asc, eq } from "drizzle-orm";
import pg from "pg";
import { createScratchDatabase, type ScratchDatabase } from "../test-support/scratch.ts";
import { databaseUrlFromEnv } from "../src/client.ts";
import { createDb, readCatalogRecords, signingKeyInCatalog, signingKeys, type Database } from "../src/index.ts";

const jwk = { kty: "EC", crv: "P-256", x: "x", y: "y" };
const HOUR = 3600_000;

describe("catalog membership", () => {
  let scratch: ScratchDatabase;
  let client: pg.Client;
  let db: Database;
  const t0 = new Date();
  let appId = "";
  const jti = { liveRevoked: "", expiredRevoked: "", live: "" };

  before(async () => {
    scratch = await createScratchDatabase({ serverUrl: databaseUrlFromEnv(), prefix: "sluice_membership" });
    client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
    db = createDb({ url: scratch.url, max: 2 });
    const q = (text: string, values: unknown[] = []) => client.query(text, values);
    appId = (await q(`insert into apps (name) values ('App') returning id`)).rows[0].id;
    const key = (kid: string, status: string, expired = false) =>
      q(
        `insert into signing_keys (kid, algorithm, public_jwk, private_key_ciphertext, status, retired_at, expired_at)
         values ($1, 'ES256', $2, 'x', $3::signing_key_status, case when $3::text = 'retired' then now() end, case when $4::boolean then now() end)`,
        [kid, jwk, status, expired],
      );
    await key("a-active", "active");
    await key("b-retired-live-token", "retired");
    await key("c-retired-expired-tokens", "retired");
    await key("d-retired-no-tokens", "retired");
    await key("e-retired-tombstoned", "retired", true);
    const token = async (kid: string, expiresInHours: number, revoked: boolean) =>
      (
        await q(
          `insert into issued_tokens (app_id, kid, permissions, issued_at, expires_at, revoked_at)
           values ($1, $2, '{}', now() - interval '5 hours', now() + make_interval(hours => $3::int), case when $4::boolean then now() - interval '4 hours' end) returning jti`,
          [appId, kid, expiresInHours, revoked],
        )
      ).rows[0].jti as string;
    jti.live = await token("b-retired-live-token", 1, false);
    jti.liveRevoked = await token("a-active", 2, true);
    jti.expiredRevoked = await token("c-retired-expired-tokens", -1, true);
    await token("e-retired-tombstoned", -2, false);
  });

  after(async () => {
    await client?.end();
    await db?.$client.end();
    await scratch?.drop();
  });

  const kinds = (records: { key: string; value: Record<string, unknown> | null }[], kind: string) =>
    records.filter((r) => r.key.startsWith(`${kind}/`)).map((r) => [r.key, r.value?.status ?? r.value?.expires_at ?? null]);

  test("the active key, retired keys with an unexpired token and revocations of unexpired tokens", async () => {
    const records = await readCatalogRecords(client);
    assert.deepEqual(kinds(records, "key"), [
      ["key/a-active", "active"],
      ["key/b-retired-live-token", "retired"],
    ]);
    const { rows } = await client.query(`select floor(extract(epoch from expires_at))::bigint as exp from issued_tokens where jti = $1`, [
      jti.liveRevoked,
    ]);
    assert.deepEqual(kinds(records, "revoked"), [[`revoked/${jti.liveRevoked}`, Number(rows[0].exp)]]);
    assert.deepEqual(kinds(records, "app"), [[`app/${appId}`, null]]);
  });

  test("evaluated at a later instant: the retired key leaves once its last token expired, and so does the revocation", async () => {
    const later = new Date(t0.getTime() + 3 * HOUR);
    const records = await readCatalogRecords(client, later);
    assert.deepEqual(kinds(records, "key"), [["key/a-active", "active"]]);
    assert.deepEqual(kinds(records, "revoked"), []);
  });

  test("app records carry the limits of the plans the app has grants under, as the portal writes them", async () => {
    const q = (text: string, values: unknown[] = []) => client.query(text, values);
    const apiId = (await q(`insert into streaming_apis (name, version) values ('Planned', '1.0.0') returning id`)).rows[0].id;
    const plan = async (name: string, connections: number | null) =>
      (await q(`insert into plans (api_id, name, connections) values ($1, $2, $3) returning id`, [apiId, name, connections])).rows[0]
        .id as string;
    const [free, gold] = [await plan("free", 1), await plan("gold", null)];
    const planned = (await q(`insert into apps (name) values ('Planned app') returning id`)).rows[0].id as string;
    const grant = (pattern: string, planId: string | null) =>
      q(`insert into app_grants (app_id, endpoint_pattern, operations, plan_id) values ($1, $2, $3, $4)`, [
        planned,
        pattern,
        ["subscribe"],
        planId,
      ]);
    await grant("/prices/*", free);
    await grant("/orders/us", gold);
    await grant("/orders/eu", gold);
    await grant("/news/*", null);
    try {
      const records = await readCatalogRecords(client);
      const record = records.find((r) => r.key === `app/${planned}`)!;
      const limits = ((record.value?.limits ?? []) as { plan: string; patterns: string[]; connections: number | null }[]).map((l) => [
        l.plan,
        l.patterns,
        l.connections,
      ]);
      assert.deepEqual(limits, [
        [gold, ["/orders/eu", "/orders/us"], null],
        [free, ["/prices/*"], 1],
      ]);
      // An app without plans has no limits key, as before plans existed.
      assert.ok(!("limits" in (records.find((r) => r.key === `app/${appId}`)!.value ?? {})));
    } finally {
      await q(`delete from apps where id = $1`, [planned]);
      await q(`delete from streaming_apis where id = $1`, [apiId]);
    }
  });

  test("signingKeyInCatalog is the same rule for the portal's queries", async () => {
    const inCatalog = async (now?: Date) =>
      (await db.select({ kid: signingKeys.kid }).from(signingKeys).where(signingKeyInCatalog(now)).orderBy(asc(signingKeys.kid))).map(
        (r) => r.kid,
      );
    assert.deepEqual(await inCatalog(), ["a-active", "b-retired-live-token"]);
    assert.deepEqual(await inCatalog(new Date(t0.getTime() + 3 * HOUR)), ["a-active"]);
    // Earlier, the tokens that have expired by now were still valid.
    assert.deepEqual(await inCatalog(new Date(t0.getTime() - 1.5 * HOUR)), [
      "a-active",
      "b-retired-live-token",
      "c-retired-expired-tokens",
    ]);
  });

  test("only a retired key can be marked expired", async () => {
    await assert.rejects(
      db.update(signingKeys).set({ expiredAt: new Date() }).where(eq(signingKeys.kid, "a-active")),
      (err: { cause?: { constraint?: string } }) => err.cause?.constraint === "signing_keys_expired_at",
    );
  });
});
