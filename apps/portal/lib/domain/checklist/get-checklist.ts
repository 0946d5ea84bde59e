// The facts behind the getting-started checklist (checklist-steps.ts), read
// from the catalog, the caller's apps and the usage tables the bridge's
// aggregator fills from the gateways' usage records. Catalog steps are about
// the catalog everyone shares; app steps are about the caller's own apps.
import { appGrants, apps, endpoints, issuedTokens, streamingApis, usageAppHours, usageAppMinutes, users } from "@sluice/db";
import { and, arrayContains, desc, eq, exists, gt, isNull, notInArray, sql, type SQL } from "drizzle-orm";

import type { AuthorizedActor } from "../../auth/actor";
import type { DbOrTx } from "../../db";
import { DEMO_API_NAME } from "../demo/ensure-demo-api";
import { checklistSteps, type ChecklistFacts, type ChecklistStep } from "./checklist-steps";

/** The API the local mode's prepare step made (ensure-demo-api.ts): its name and tag, and no owner. */
const isDemoApi: SQL = and(
  eq(streamingApis.name, DEMO_API_NAME),
  arrayContains(streamingApis.tags, ["demo"]),
  isNull(streamingApis.ownerId),
)!;

export interface Checklist {
  dismissed: boolean;
  steps: ChecklistStep[];
}

export async function getChecklist(options: { db: DbOrTx; actor: AuthorizedActor }): Promise<Checklist> {
  const { db, actor } = options;
  const [me] = await db.select({ dismissedAt: users.checklistDismissedAt }).from(users).where(eq(users.id, actor.userId));
  // Fail closed: a user row that is gone (deleted while signed in) shows nothing.
  if (!me || me.dismissedAt) return { dismissed: true, steps: [] };
  return { dismissed: false, steps: checklistSteps(await readFacts(db, actor.userId), actor.role) };
}

async function readFacts(db: DbOrTx, userId: string): Promise<ChecklistFacts> {
  const demoTopics = db
    .select({ topic: endpoints.topic })
    .from(endpoints)
    .innerJoin(streamingApis, eq(streamingApis.id, endpoints.apiId))
    .where(isDemoApi);
  const ownApps = and(eq(apps.ownerId, userId), eq(apps.kind, "standard"));
  const newestOwnApp = (where?: SQL) =>
    db
      .select({ id: apps.id })
      .from(apps)
      .where(and(ownApps, where))
      .orderBy(desc(apps.createdAt))
      .limit(1)
      .then(([row]) => row?.id ?? null);
  const connectedIn = (table: typeof usageAppMinutes | typeof usageAppHours) =>
    db
      .select({ appId: table.appId })
      .from(table)
      .innerJoin(apps, eq(apps.id, table.appId))
      .where(and(ownApps, gt(table.connections, 0)))
      .limit(1)
      .then((rows) => rows.length > 0);

  const [apiId, ownTopicEndpoint, appId, grantedAppId, tokenAppId, clientConnected] = await Promise.all([
    db
      .select({ id: streamingApis.id })
      .from(streamingApis)
      .where(sql`not (${isDemoApi})`)
      .orderBy(desc(streamingApis.createdAt))
      .limit(1)
      .then(([row]) => row?.id ?? null),
    db
      .select({ id: endpoints.id })
      .from(endpoints)
      .where(notInArray(endpoints.topic, demoTopics))
      .limit(1)
      .then((rows) => rows.length > 0),
    newestOwnApp(),
    newestOwnApp(exists(db.select({ one: sql`1` }).from(appGrants).where(eq(appGrants.appId, apps.id)))),
    newestOwnApp(exists(db.select({ one: sql`1` }).from(issuedTokens).where(eq(issuedTokens.appId, apps.id)))),
    // Minute buckets are pruned after a while; hour buckets keep the longer past.
    Promise.all([connectedIn(usageAppMinutes), connectedIn(usageAppHours)]).then(([minutes, hours]) => minutes || hours),
  ]);
  return { apiId, ownTopicEndpoint, appId, grantedAppId, tokenAppId, clientConnected };
}
