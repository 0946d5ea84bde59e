// GET /audit against the running portal. Each run inserts its own entries under
// an entity type no one else uses, so the shared database's other rows never
// disturb the assertions; they are deleted again at the end.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { auditLog } from "@sluice/db";
import { eq } from "drizzle-orm";

import { db, rawApi, seedUser, type SeededUser } from "./helpers";

// Entity types and actions are lower-case letters and underscores only.
const run = Array.from({ length: 10 }, () => String.fromCharCode(97 + randomInt(26))).join("");
const entityType = `it_audit_${run}`;
const actorA = `Alice-${run}@Test.Sluice`;
const actorB = `bob_${run}@test.sluice`;
const at = (minute: number) => new Date(Date.UTC(2001, 0, 1, 12, minute));

// Minute 10 holds three entries at the same instant, to test the cursor's tie-break.
const entries = [
  { minute: 0, actor: actorA, action: `${entityType}.create`, entityId: "one", before: null, after: { name: "one", size: 1 } },
  {
    minute: 5,
    actor: actorB,
    action: `${entityType}.update`,
    entityId: "one",
    before: { name: "one", size: 1 },
    after: { name: "one", size: 2 },
  },
  { minute: 10, actor: actorA, action: `${entityType}.create`, entityId: "two", before: null, after: { name: "two" } },
  { minute: 10, actor: actorB, action: `${entityType}.create`, entityId: "three", before: null, after: { name: "three" } },
  { minute: 10, actor: actorA, action: `${entityType}.delete`, entityId: "two", before: { name: "two" }, after: null },
  { minute: 20, actor: actorB, action: `${entityType}.delete`, entityId: "one", before: { name: "one", size: 2 }, after: null },
];

let editor: SeededUser;
let ids: number[] = [];

type Query = {
  entityType?: string;
  entityId?: string;
  action?: string;
  actor?: string;
  from?: string;
  to?: string;
  limit?: number;
  cursor?: string;
};

async function list(query: Query) {
  const { data, response, error } = await editor.api.GET("/audit", { params: { query: { entityType, ...query } } });
  assert.equal(response.status, 200, JSON.stringify(error));
  return data!;
}

/** Entries by their index in `entries`, newest first as the API orders them (ties: later insert first). */
const expected = (...indexes: number[]) =>
  indexes.map((i) => ids[i]).sort((a, b) => entries[ids.indexOf(b!)]!.minute - entries[ids.indexOf(a!)]!.minute || b! - a!);

describe("audit log API", () => {
  // Suite-level hooks: they run before helpers.ts closes the shared pool.
  before(async () => {
    editor = await seedUser("editor", "audit-editor");
    const rows = await db
      .insert(auditLog)
      .values(
        entries.map((e) => ({
          occurredAt: at(e.minute),
          actor: e.actor,
          action: e.action,
          entityType,
          entityId: e.entityId,
          before: e.before,
          after: e.after,
        })),
      )
      .returning({ id: auditLog.id });
    ids = rows.map((r) => r.id);
  });

  after(async () => {
    await db.delete(auditLog).where(eq(auditLog.entityType, entityType));
  });

  test("filters by entity type; newest first with who, what, when and before/after", async () => {
    const page = await list({});
    assert.deepEqual(
      page.items.map((e) => e.id),
      expected(0, 1, 2, 3, 4, 5),
    );
    assert.equal(page.nextCursor, null);
    const newest = page.items[0]!;
    assert.equal(newest.actor, actorB);
    assert.equal(newest.action, `${entityType}.delete`);
    assert.equal(newest.occurredAt, at(20).toISOString());
    assert.deepEqual([newest.before, newest.after], [{ name: "one", size: 2 }, null]);
  });

  test("filters by action, entity id, actor (contains, case-insensitive) and time", async () => {
    assert.deepEqual(
      (await list({ action: `${entityType}.create` })).items.map((e) => e.id),
      expected(0, 2, 3),
    );
    assert.deepEqual(
      (await list({ entityId: "one" })).items.map((e) => e.id),
      expected(0, 1, 5),
    );
    assert.deepEqual(
      (await list({ actor: `alice-${run}` })).items.map((e) => e.id),
      expected(0, 2, 4),
    );
    assert.deepEqual((await list({ actor: "%" })).items, [], "LIKE wildcards in the filter are plain text");
    // from is inclusive, to exclusive.
    assert.deepEqual(
      (await list({ from: at(5).toISOString(), to: at(20).toISOString() })).items.map((e) => e.id),
      expected(1, 2, 3, 4),
    );
    assert.deepEqual(
      (await list({ from: "2001-01-01T13:05:00+01:00" })).items.map((e) => e.id),
      expected(1, 2, 3, 4, 5),
      "offsets are honoured",
    );
    assert.deepEqual(
      (await list({ action: `${entityType}.delete`, actor: "BOB" })).items.map((e) => e.id),
      expected(5),
      "filters combine with AND",
    );
  });

  test("pagination returns every entry exactly once, in order, across same-instant ties", async () => {
    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await list({ limit: 2, ...(cursor ? { cursor } : {}) });
      assert.ok(page.items.length <= 2);
      seen.push(...page.items.map((e) => e.id));
      cursor = page.nextCursor ?? undefined;
      pages += 1;
      assert.ok(pages <= 4, "pagination does not end");
    } while (cursor);
    assert.deepEqual(seen, expected(0, 1, 2, 3, 4, 5));
    assert.equal(pages, 3);
  });

  test("viewers may not read the audit log; editors may", async () => {
    const viewer = await seedUser("viewer", "audit-viewer");
    const res = await viewer.api.GET("/audit", { params: { query: { entityType } } });
    assert.equal(res.response.status, 403);
    assert.equal((await rawApi("/audit")).status, 401);
  });

  test("bad filter values are refused with 422 naming the field", async () => {
    const cases: [string, string][] = [
      [`entityType=Not-A-Type`, "entityType"],
      [`action=created`, "action"],
      [`from=yesterday`, "from"],
      [`to=2001-01-01T12:00:00`, "to"],
      [`from=2001-01-01T12:00:00Z&to=2001-01-01T11:00:00Z`, "to"],
      [`limit=0`, "limit"],
      [`cursor=garbage`, "cursor"],
      [`cursor=${Buffer.from(JSON.stringify(["1; drop table", 1])).toString("base64url")}`, "cursor"],
    ];
    for (const [query, field] of cases) {
      const res = await rawApi(`/audit?${query}`, { key: editor.key });
      assert.equal(res.status, 422, query);
      const problem = await res.json();
      assert.deepEqual(
        problem.errors.map((e: { field: string }) => e.field),
        [field],
        query,
      );
    }
  });
});
