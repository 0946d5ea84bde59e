// Times the management API's lists with 10,000 endpoints in one API: the first
// page, a deep page (the last one, reached through the cursors) and a search.
// Seeds its own data (a viewer with an API key, one API, 10,000 endpoints in one
// SQL insert), measures over the HTTP API of a running portal, then removes it.
//
//   export DATABASE_URL=… SLUICE_PORTAL_URL=http://127.0.0.1:3000   # the dev stack's, see docs/benchmarks.md
//   node --import tsx bench/portal-lists.ts [runs=50]
//
// Figures go to docs/benchmarks.md; nothing here is part of the test suite.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { resolve } from "node:path";

// pg lives in the portal's dependencies; bench/ has none of its own.
const requireFromPortal = createRequire(resolve(process.argv[1]!, "../../apps/portal/package.json"));
const { Client } = requireFromPortal("pg") as typeof import("pg");

const portal = process.env.SLUICE_PORTAL_URL ?? "http://127.0.0.1:3000";
const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error("DATABASE_URL is not set");
const runs = Number(process.argv[2] ?? 50);
const N = 10_000;
const LIMIT = 200;

async function main() {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  const tag = randomUUID().slice(0, 8);
  const key = `slk_${randomBytes(32).toString("base64url")}`;
  const topic = `bench-lists-${tag}`;

  const {
    rows: [user],
  } = await db.query(`insert into users (email, role, password_hash) values ($1, 'viewer', null) returning id`, [
    `bench-${tag}@bench.sluice`,
  ]);
  await db.query(`insert into api_keys (user_id, name, prefix, secret_hash) values ($1, 'bench', $2, $3)`, [
    user.id,
    key.slice(0, 10),
    createHash("sha256").update(key).digest("hex"),
  ]);
  const {
    rows: [api],
  } = await db.query(`insert into streaming_apis (name, version, description) values ($1, '1.0.0', 'portal list benchmark') returning id`, [
    `Bench ${tag}`,
  ]);
  await db.query(
    `insert into endpoints (api_id, path, topic, key, operations, description)
     select $1::uuid, '/' || $2 || '/k-' || lpad(i::text, 5, '0'), $2, 'k-' || lpad(i::text, 5, '0'), array['subscribe'], 'Endpoint number ' || i
     from generate_series(1, ${N}) as i`,
    [api.id, topic],
  );
  await db.query("analyze endpoints");

  async function get(path: string): Promise<{ ms: number; body: { items: unknown[]; nextCursor: string | null } }> {
    const started = performance.now();
    const res = await fetch(`${portal}/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } });
    const body = await res.json();
    const ms = performance.now() - started;
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
    return { ms, body };
  }

  const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

  async function measure(label: string, path: string) {
    await get(path); // warm-up
    const times: number[] = [];
    for (let i = 0; i < runs; i++) times.push((await get(path)).ms);
    times.sort((a, b) => a - b);
    console.log(
      `${label.padEnd(34)} p50 ${percentile(times, 50).toFixed(1).padStart(6)} ms   p95 ${percentile(times, 95).toFixed(1).padStart(6)} ms   (${runs} runs)`,
    );
  }

  try {
    // Walk the cursors to the last page once, timing the full walk too.
    let cursor: string | null = null;
    let lastCursor: string | null = null;
    let count = 0;
    const walkStarted = performance.now();
    do {
      lastCursor = cursor;
      const { body } = await get(`/apis/${api.id}/endpoints?limit=${LIMIT}${cursor ? `&cursor=${cursor}` : ""}`);
      count += body.items.length;
      cursor = body.nextCursor;
    } while (cursor);
    const walkMs = performance.now() - walkStarted;
    if (count !== N) throw new Error(`walked ${count} endpoints, expected ${N}`);

    console.log(`portal ${portal}, ${N} endpoints in one API, limit=${LIMIT}`);
    await measure("first page", `/apis/${api.id}/endpoints?limit=${LIMIT}`);
    await measure(`deep page (page ${N / LIMIT})`, `/apis/${api.id}/endpoints?limit=${LIMIT}&cursor=${lastCursor}`);
    await measure("search (q=number 4242)", `/apis/${api.id}/endpoints?q=${encodeURIComponent("number 4242")}`);
    await measure("global search (q=<topic>/k-07777)", `/endpoints?q=${encodeURIComponent(`${topic}/k-07777`)}`);
    await measure("catalog (GET /apis, first page)", `/apis?limit=50`);
    console.log(`full walk of ${N / LIMIT} pages: ${walkMs.toFixed(0)} ms`);
  } finally {
    await db.query("delete from streaming_apis where id = $1", [api.id]);
    await db.query("delete from users where id = $1", [user.id]);
    await db.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
