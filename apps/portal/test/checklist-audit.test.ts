// The getting-started checklist's facts and the audit page's names and
// console-mint filter, against a real PostgreSQL: a scratch database each, so
// the catalog steps start from an empty catalog whatever else the stack holds.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, test } from "node:test";

import {
  appGrants,
  apps,
  auditLog,
  endpoints,
  issuedTokens,
  signingKeys,
  streamingApis,
  usageAppMinutes,
  users,
  type Database,
} from "@sluice/db";

import { actorFromUser, authorize } from "../lib/auth/actor";
import { listAuditEntries } from "../lib/domain/audit/list-audit-entries";
import { getChecklist } from "../lib/domain/checklist/get-checklist";
import { setChecklistDismissed } from "../lib/domain/checklist/dismiss-checklist";
import { ensureDemoApi } from "../lib/domain/demo/ensure-demo-api";
import { closeKafkaAdmins } from "../lib/kafka/admin";
import { closePortalRegistry } from "../lib/registry/registry";
import { createTopic } from "./catalog-helpers";
import { scratchDatabase } from "./helpers";

after(closeKafkaAdmins);
after(() => closePortalRegistry());

async function seedAdmin(db: Database, displayName = "") {
  const [user] = await db
    .insert(users)
    .values({ email: `guide-${randomUUID().slice(0, 8)}@test.sluice`, displayName, role: "admin", passwordHash: "x" })
    .returning();
  return { user: user!, actor: authorize(actorFromUser(user!, { kind: "session" }), "admin") };
}

async function doneSteps(db: Database, actor: Parameters<typeof getChecklist>[0]["actor"]) {
  const checklist = await getChecklist({ db, actor });
  return checklist.steps.filter((s) => s.done).map((s) => s.id);
}

test("the checklist counts the caller's own apps and the non-demo catalog, and usage with a connection", async (t) => {
  const db = await scratchDatabase(t);
  const demoTopic = await createTopic("guide-demo", 1);
  assert.equal((await ensureDemoApi({ db, topic: demoTopic })).kind, "created");
  const { user: me, actor } = await seedAdmin(db);
  const { user: other } = await seedAdmin(db);

  // Only the demo API: nothing is done.
  assert.deepEqual(await doneSteps(db, actor), []);

  // An API of one's own counts; an endpoint on the demo's topic does not connect a topic of one's own.
  const [api] = await db.insert(streamingApis).values({ name: "Orders", version: "1.0.0", ownerId: me.id }).returning();
  await db.insert(endpoints).values({ apiId: api!.id, path: `/${demoTopic}/v9`, topic: demoTopic, key: "v9", operations: ["subscribe"] });
  assert.deepEqual(await doneSteps(db, actor), ["api"]);
  const topicStep = (await getChecklist({ db, actor })).steps.find((s) => s.id === "topic");
  assert.equal(topicStep?.href, `/apis/${api!.id}/endpoints/new`);
  await db.insert(endpoints).values({ apiId: api!.id, path: "/orders/{id}", topic: "orders", keyParam: "id", operations: ["subscribe"] });
  assert.deepEqual(await doneSteps(db, actor), ["api", "topic"]);

  // Someone else's app and the console's app are not the caller's app.
  const [othersApp] = await db.insert(apps).values({ name: "theirs", ownerId: other.id }).returning();
  await db.insert(apps).values({ name: "Live console", kind: "console", ownerId: me.id });
  await db.insert(appGrants).values({ appId: othersApp!.id, endpointPattern: "/orders/*", operations: ["subscribe"] });
  assert.deepEqual(await doneSteps(db, actor), ["api", "topic"]);

  const [mine] = await db.insert(apps).values({ name: "mine", ownerId: me.id }).returning();
  assert.deepEqual(await doneSteps(db, actor), ["api", "topic", "app"]);
  await db.insert(appGrants).values({ appId: mine!.id, endpointPattern: "/orders/*", operations: ["subscribe"] });
  assert.deepEqual(await doneSteps(db, actor), ["api", "topic", "app", "grant"]);

  await db.insert(signingKeys).values({ kid: "guide-key", algorithm: "ES256", publicJwk: {}, privateKeyCiphertext: "not used" });
  await db.insert(issuedTokens).values({
    appId: mine!.id,
    kid: "guide-key",
    permissions: { sub: ["/orders/*"], pub: [], all: [] },
    expiresAt: new Date(Date.now() + 3600_000),
  });
  assert.deepEqual(await doneSteps(db, actor), ["api", "topic", "app", "grant", "token"]);

  // Usage: another app's connection, or a bucket of the caller's app with no connection, is not a connected client.
  const minute = new Date(Math.floor(Date.now() / 60_000) * 60_000);
  await db.insert(usageAppMinutes).values([
    { bucketStart: minute, appId: othersApp!.id, node: "gw-1", connections: 2 },
    { bucketStart: minute, appId: mine!.id, node: "gw-1", connections: 0, refusedConnections: 1 },
  ]);
  assert.ok(!(await doneSteps(db, actor)).includes("client"));
  await db.insert(usageAppMinutes).values({ bucketStart: minute, appId: mine!.id, node: "gw-2", connections: 1 });
  assert.deepEqual(await doneSteps(db, actor), ["api", "topic", "app", "grant", "token", "client"]);

  // Hidden for the caller only, and shown again.
  await setChecklistDismissed({ db, actor, dismissed: true });
  assert.deepEqual(await getChecklist({ db, actor }), { dismissed: true, steps: [] });
  const otherActor = authorize(actorFromUser(other, { kind: "session" }), "admin");
  assert.equal((await getChecklist({ db, actor: otherActor })).dismissed, false);
  await setChecklistDismissed({ db, actor, dismissed: false });
  assert.equal((await getChecklist({ db, actor })).steps.length, 6);
});

test("audit entries carry names next to ids, and the console's token mints can be left out", async (t) => {
  const db = await scratchDatabase(t);
  const { user: ada, actor } = await seedAdmin(db, "Ada Lovelace");
  const [consoleApp] = await db.insert(apps).values({ name: "Live console", kind: "console" }).returning();
  const [app] = await db.insert(apps).values({ name: "Hall screens", ownerId: ada.id }).returning();
  const [api] = await db.insert(streamingApis).values({ name: "Prices", version: "2.0.0" }).returning();
  const goneAppId = randomUUID();
  const entry = (action: string, entityType: string, entityId: string | null, before: unknown, after: unknown) => ({
    actor: ada.email,
    actorUserId: ada.id,
    action,
    entityType,
    entityId,
    before,
    after,
  });
  await db
    .insert(auditLog)
    .values([
      entry("api.update", "api", api!.id, { name: "Old prices" }, { name: "Prices" }),
      entry("app.delete", "app", goneAppId, { name: "Gone app" }, null),
      entry("token.mint", "token", randomUUID(), null, { appId: app!.id, appName: "old name" }),
      entry("token.mint", "token", randomUUID(), null, { appId: consoleApp!.id, appName: "Live console" }),
      entry("grant.create", "app_grant", randomUUID(), null, { appId: app!.id, endpointPattern: "/prices/*" }),
      entry("signing_key.rotate", "signing_key", "kid-not-a-uuid", null, { kid: "kid-not-a-uuid" }),
      { ...entry("user.update", "user", ada.id, null, null), actor: "system", actorUserId: null },
    ]);

  const list = async (hideConsoleMints: boolean) =>
    (await listAuditEntries({ db, actor, filter: {}, limit: 50, hideConsoleMints })).items.map((e) => ({
      action: e.action,
      actorName: e.actorName,
      entityName: e.entityName,
    }));
  const all = await list(false);
  assert.deepEqual(all.reverse(), [
    { action: "api.update", actorName: "Ada Lovelace", entityName: "Prices v2.0.0" },
    { action: "app.delete", actorName: "Ada Lovelace", entityName: "Gone app" },
    { action: "token.mint", actorName: "Ada Lovelace", entityName: "Hall screens" },
    { action: "token.mint", actorName: "Ada Lovelace", entityName: "Live console" },
    { action: "grant.create", actorName: "Ada Lovelace", entityName: "/prices/* for Hall screens" },
    { action: "signing_key.rotate", actorName: "Ada Lovelace", entityName: null },
    { action: "user.update", actorName: null, entityName: ada.email },
  ]);
  const hidden = await list(true);
  assert.equal(hidden.length, all.length - 1);
  assert.ok(!hidden.some((e) => e.entityName === "Live console"));
});
