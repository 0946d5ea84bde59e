// packages/protocol/vectors/catalog-records.json is the builders' output: this
// fails when a builder changes what it writes and the file was not regenerated
// (SLUICE_WRITE_VECTORS=1 rewrites it), so the gateway's decoder, which is
// tested against the file, always sees what the portal and the bridge write.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { test } from "node:test";
import { CATALOG_VECTORS_FILE, catalogVectors } from "../test-support/catalog-vectors.ts";
import { appLimits, appRecord, type PlanGrant } from "./catalog-records.ts";
import type { PlanLimit } from "./schema.ts";

test("vectors/catalog-records.json is what the record builders write", () => {
  const built = catalogVectors();
  if (process.env.SLUICE_WRITE_VECTORS) writeFileSync(CATALOG_VECTORS_FILE, `${JSON.stringify(built, null, 2)}\n`);
  const committed = JSON.parse(readFileSync(CATALOG_VECTORS_FILE, "utf8"));
  assert.deepEqual(committed, JSON.parse(JSON.stringify(built)), "regenerate with SLUICE_WRITE_VECTORS=1 pnpm --filter @sluice/db test");
});

const plan = (id: string, name: string, limits: Partial<Record<PlanLimit, number>>) => ({
  id,
  name,
  connections: null,
  subscriptionsPerConnection: null,
  publishPerSecond: null,
  deliveredPerSecond: null,
  deliveredBytesPerSecond: null,
  ...limits,
});

test("appLimits: one entry per plan with its grants' patterns, the most generous plan first", () => {
  const free = plan("p-free", "free", { connections: 1, publishPerSecond: 5 });
  const standard = plan("p-standard", "standard", { connections: 10, publishPerSecond: 5 });
  const unlimitedConnections = plan("p-unlimited", "unlimited", { publishPerSecond: 1 });
  const fasterStandard = plan("p-faster", "faster", { connections: 10, publishPerSecond: 50 });
  const limits = appLimits([
    { pattern: "/prices/*", plan: free },
    { pattern: "/orders/us", plan: standard },
    { pattern: "/orders/eu", plan: standard },
    { pattern: "/alerts/*", plan: unlimitedConnections },
    { pattern: "/trades/*", plan: fasterStandard },
  ]);
  // null connections beat any number; at equal connections the next limit decides.
  assert.deepEqual(
    limits.map((l) => [l.name, l.patterns]),
    [
      ["unlimited", ["/alerts/*"]],
      ["faster", ["/trades/*"]],
      ["standard", ["/orders/eu", "/orders/us"]],
      ["free", ["/prices/*"]],
    ],
  );
  assert.deepEqual(limits[3], {
    plan: "p-free",
    name: "free",
    patterns: ["/prices/*"],
    connections: 1,
    subscriptions_per_connection: null,
    publish_per_second: 5,
    delivered_per_second: null,
    delivered_bytes_per_second: null,
  });
});

test("appLimits: equal plans go by name, then id, whatever order the grants come in", () => {
  const a = plan("p-2", "alpha", { connections: 3 });
  const b = plan("p-1", "beta", { connections: 3 });
  const c = plan("p-0", "alpha", { connections: 3 });
  const order = (grants: PlanGrant[]) => appLimits(grants).map((l) => l.plan);
  const grants = [a, b, c].map((p, i) => ({ pattern: `/t${i}/*`, plan: p }));
  assert.deepEqual(order(grants), ["p-0", "p-2", "p-1"]);
  assert.deepEqual(order([...grants].reverse()), ["p-0", "p-2", "p-1"]);
});

test("appRecord: limits only when the app has plans", () => {
  const app = { id: "a1", name: "Dashboard", tokensNotBefore: null };
  assert.deepEqual(appRecord(app).value, { v: 1, id: "a1", name: "Dashboard", tokens_not_before: null });
  const limits = appLimits([{ pattern: "/prices/*", plan: plan("p", "free", { connections: 1 }) }]);
  assert.deepEqual(appRecord(app, limits).value?.limits, limits);
});
