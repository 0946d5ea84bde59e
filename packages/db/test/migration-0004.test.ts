// Migration 0004 adds signing_keys.expired_at and fills it for keys the portal
// had already tombstoned, which were marked only by their audit entry: an install
// upgraded from 0003 must not tombstone (and audit) those keys a second time.
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { createScratchDatabase, type ScratchDatabase } from "../test-support/scratch.ts";
import { databaseUrlFromEnv } from "../src/client.ts";
import { MIGRATIONS_FOLDER } from "../src/migrate.ts";

let scratch: ScratchDatabase;
let client: pg.Client;
const upTo0003 = mkdtempSync(path.join(tmpdir(), "sluice-migrations-"));

before(async () => {
  // The scratch helper migrates fully; this test wants an install as of 0003, so it
  // starts from an empty database of its own and a copy of the journal without 0004.
  scratch = await createScratchDatabase({ serverUrl: databaseUrlFromEnv(), prefix: "sluice_mig0004" });
  client = new pg.Client({ connectionString: scratch.url });
  await client.connect();
  await client.query("drop schema public cascade; create schema public; drop schema drizzle cascade");
  cpSync(MIGRATIONS_FOLDER, upTo0003, { recursive: true });
  const journalFile = path.join(upTo0003, "meta/_journal.json");
  const journal = JSON.parse(readFileSync(journalFile, "utf8"));
  journal.entries = journal.entries.filter((e: { idx: number }) => e.idx < 4);
  writeFileSync(journalFile, JSON.stringify(journal));
});

after(async () => {
  rmSync(upTo0003, { recursive: true, force: true });
  await client?.end();
  await scratch?.drop();
});

test("keys tombstoned before 0004 get expired_at from their audit entry; others stay null", async () => {
  await migrate(drizzle(client), { migrationsFolder: upTo0003 });
  const key = (kid: string, status: string) =>
    client.query(
      `insert into signing_keys (kid, algorithm, public_jwk, private_key_ciphertext, status, retired_at)
       values ($1, 'ES256', '{}', 'x', $2::signing_key_status, case when $2::text = 'retired' then now() end)`,
      [kid, status],
    );
  await key("active", "active");
  await key("retired-tombstoned", "retired");
  await key("retired-live", "retired");
  await client.query(
    `insert into audit_log (actor, action, entity_type, entity_id, occurred_at) values
       ('system', 'signing_key.expire', 'signing_key', 'retired-tombstoned', '2026-11-01T00:00:00Z'),
       ('system', 'signing_key.retire', 'signing_key', 'retired-live', '2026-11-02T00:00:00Z')`,
  );

  await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
  const { rows } = await client.query<{ kid: string; expired_at: Date | null }>("select kid, expired_at from signing_keys order by kid");
  assert.deepEqual(
    rows.map((r) => [r.kid, r.expired_at?.toISOString() ?? null]),
    [
      ["active", null],
      ["retired-live", null],
      ["retired-tombstoned", "2026-11-01T00:00:00.000Z"],
    ],
  );
});
