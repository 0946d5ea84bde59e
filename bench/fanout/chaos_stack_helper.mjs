// The database side of `fanout chaos` with the catalog stack (chaos_stack.go):
// the runner embeds this file and runs it with `node --import tsx` in the
// checkout under test (-repo), so the migrations and the catalog rules are that
// checkout's own (@sluice/db), not a copy.
//
//   migrate <server url> <database>   create the database if missing, apply the migrations
//   seed <database url>               an admin with a personal API key (printed as JSON)
//   catalog <database url>            the catalog as the bridge would publish it, as JSON
//
// The repository is SLUICE_REPO. Only loopback PostgreSQL of the run's own.
import { createHash, randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

const repo = process.env.SLUICE_REPO;
if (!repo) throw new Error("SLUICE_REPO is not set");
const dbPackage = path.join(repo, "packages/db");
const pg = createRequire(path.join(dbPackage, "package.json"))("pg");
const load = (file) => import(pathToFileURL(path.join(dbPackage, "src", file)).href);

const [command, url, database] = process.argv.slice(2);

async function withClient(connectionString, fn) {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

if (command === "migrate") {
  await withClient(url, async (c) => {
    const { rowCount } = await c.query("select 1 from pg_database where datname = $1", [database]);
    if (!rowCount) await c.query(`create database ${database}`);
  });
  const target = new URL(url);
  target.pathname = `/${database}`;
  const { migrateDatabase } = await load("migrate.ts");
  await migrateDatabase({ url: target.toString() });
} else if (command === "seed") {
  // As apps/portal/test/helpers.ts and bench/portal-lists.ts do: the user row
  // and the key's hash straight into the tables (there is no API to make the
  // first key); everything else goes through the portal's API.
  const key = `slk_${randomBytes(32).toString("base64url")}`;
  const out = await withClient(url, async (c) => {
    const tag = randomBytes(4).toString("hex");
    const {
      rows: [user],
    } = await c.query(`insert into users (email, role, password_hash) values ($1, 'admin', null) returning id`, [
      `chaos-${tag}@bench.sluice`,
    ]);
    await c.query(`insert into api_keys (user_id, name, prefix, secret_hash) values ($1, 'fanout chaos', $2, $3)`, [
      user.id,
      key.slice(0, 10),
      createHash("sha256").update(key).digest("hex"),
    ]);
    return { key, userId: user.id };
  });
  process.stdout.write(`${JSON.stringify(out)}\n`);
} else if (command === "catalog") {
  const { readCatalogRecords } = await load("catalog-membership.ts");
  const out = await withClient(url, async (c) => {
    await c.query("begin isolation level repeatable read read only");
    const records = await readCatalogRecords(c);
    const {
      rows: [pending],
    } = await c.query("select count(*)::int as n from catalog_outbox where published_at is null");
    await c.query("commit");
    return { records, pending: pending.n };
  });
  process.stdout.write(`${JSON.stringify(out)}\n`);
} else {
  process.stderr.write(`unknown command ${command}\n`);
  process.exit(2);
}
