// The full republish at start: creates a missing topic (compacted, 1 partition),
// publishes the whole catalog from the tables, tombstones what the tables no
// longer hold, and changes nothing when run again.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { appRecord, endpointRecord, revokedTokenRecord, signingKeyRecord } from "@sluice/db";
import { createApi, kafka, pendingCount, startBridgeProcess, topicRecords, topicState, scratchPerFile, waitFor } from "./helpers.ts";

const scratch = scratchPerFile();
const { topic } = scratch;

const jwk = { kty: "EC", crv: "P-256", x: "x", y: "y" };
async function seed() {
  const q = (text: string, values: unknown[] = []) => scratch.db.pool.query(text, values);
  const api = await createApi(scratch.db.pool);
  const eps = [];
  for (const key of ["a", "b"]) {
    const { rows } = await q(
      `insert into endpoints (api_id, path, topic, key, operations, json_schema) values ($1, $2, 'orders', $3, array['subscribe','publish'], $4)
       returning id, api_id as "apiId", path, topic, key, key_param as "keyParam", operations, payload_format as "payloadFormat",
                 json_schema as "jsonSchema", description, examples, created_at as "createdAt", updated_at as "updatedAt"`,
      [api.id, `/orders/${key}`, key, key === "a" ? { type: "object" } : null],
    );
    eps.push(rows[0]);
  }
  const app = (
    await q(
      `insert into apps (name, tokens_not_before) values ('Dash', to_timestamp(1795000000)) returning id, name, tokens_not_before as "tokensNotBefore"`,
    )
  ).rows[0];
  await q(
    `insert into signing_keys (kid, algorithm, public_jwk, private_key_ciphertext, status) values ('k-active', 'ES256', $1, 'x', 'active')`,
    [jwk],
  );
  await q(
    `insert into signing_keys (kid, algorithm, public_jwk, private_key_ciphertext, status, retired_at) values ('k-retired-live', 'ES256', $1, 'x', 'retired', now()), ('k-retired-dead', 'ES256', $1, 'x', 'retired', now())`,
    [jwk],
  );
  const live = randomUUID();
  const revokedLive = randomUUID();
  await q(
    `insert into issued_tokens (jti, app_id, kid, permissions, issued_at, expires_at, revoked_at) values
       ($1, $4, 'k-retired-live', '{}', now() - interval '1 hour', now() + interval '1 hour', null),
       ($2, $4, 'k-active', '{}', now() - interval '1 hour', now() + interval '1 hour', now()),
       ($3, $4, 'k-retired-dead', '{}', now() - interval '2 hours', now() - interval '1 hour', now() - interval '90 minutes')`,
    [live, revokedLive, randomUUID(), app.id],
  );
  const expiresAt = (await q(`select expires_at from issued_tokens where jti = $1`, [revokedLive])).rows[0].expires_at;
  // A change the portal wrote but no bridge published yet: covered by the republish.
  await q(`insert into catalog_outbox (record_key, record_value) values ($1, $2)`, [`app/${app.id}`, appRecord(app).value]);
  return {
    api,
    eps,
    revokedLive,
    expected: [
      signingKeyRecord({ kid: "k-active", algorithm: "ES256", publicJwk: jwk, status: "active" }),
      signingKeyRecord({ kid: "k-retired-live", algorithm: "ES256", publicJwk: jwk, status: "retired" }),
      appRecord(app),
      ...eps.map((e) => endpointRecord(e, api)),
      revokedTokenRecord({ jti: revokedLive, appId: app.id, expiresAt }),
    ],
  };
}

test("creates the missing topic compacted with 1 partition and publishes the whole catalog; a second run publishes nothing; deletions become tombstones", async () => {
  const seeded = await seed();
  const first = await startBridgeProcess({ databaseUrl: scratch.db.url, topic });
  await first.waitForLog(/publishing outbox changes/);

  const admin = kafka.admin();
  await admin.connect();
  try {
    const meta = await admin.fetchTopicMetadata({ topics: [topic] });
    assert.equal(meta.topics[0]!.partitions.length, 1);
    const cfg = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: 2, name: topic, configNames: ["cleanup.policy"] }],
    });
    assert.equal(cfg.resources[0]!.configEntries[0]!.configValue, "compact");
  } finally {
    await admin.disconnect();
  }
  const state = await topicState(topic);
  assert.deepEqual(new Map([...state].sort()), new Map(seeded.expected.map((r) => [r.key, r.value] as const).sort()));
  assert.equal(await pendingCount(scratch.db.pool), 0, "the pending outbox row is covered by the republish");
  const afterFirst = (await topicRecords(topic)).length;
  assert.equal(afterFirst, seeded.expected.length);
  assert.equal(await first.stop(), 0);

  // Idempotent: nothing changed, so nothing is produced.
  const second = await startBridgeProcess({ databaseUrl: scratch.db.url, topic });
  await second.waitForLog(/publishing outbox changes/);
  assert.equal((await topicRecords(topic)).length, afterFirst);
  assert.equal(await second.stop(), 0);

  // Deleted while no bridge ran, and a revocation that expired meanwhile.
  await scratch.db.pool.query(`delete from endpoints where id = $1`, [seeded.eps[1].id]);
  await scratch.db.pool.query(
    `update issued_tokens set issued_at = now() - interval '3 hours', revoked_at = now() - interval '2 hours', expires_at = now() - interval '1 minute' where jti = $1`,
    [seeded.revokedLive],
  );
  const third = await startBridgeProcess({ databaseUrl: scratch.db.url, topic });
  await third.waitForLog(/publishing outbox changes/);
  const records = await topicRecords(topic);
  assert.deepEqual(
    records
      .slice(afterFirst)
      .map((r) => [r.key, r.value])
      .sort(),
    [
      [`endpoint/${seeded.eps[1].id}`, null],
      [`revoked/${seeded.revokedLive}`, null],
    ].sort(),
  );
  await waitFor("state without the deleted entries", async () => (await topicState(topic)).size === seeded.expected.length - 2);
  assert.equal(await third.stop(), 0);
});
