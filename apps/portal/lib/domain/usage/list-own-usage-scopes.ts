// What a viewer may open traffic pages for: the apps they own and the APIs they
// own (the traffic overview page lists them; editors see everything instead).
import { apps, streamingApis } from "@sluice/db";
import { and, asc, eq } from "drizzle-orm";

import type { Actor } from "../../auth/actor";
import type { DbOrTx } from "../../db";

export async function listOwnUsageScopes(options: { db: DbOrTx; actor: Actor }) {
  const { db, actor } = options;
  const [ownApps, ownApis] = await Promise.all([
    db
      .select({ id: apps.id, name: apps.name })
      .from(apps)
      .where(and(eq(apps.ownerId, actor.userId), eq(apps.kind, "standard")))
      .orderBy(asc(apps.name)),
    db
      .select({ id: streamingApis.id, name: streamingApis.name, version: streamingApis.version })
      .from(streamingApis)
      .where(eq(streamingApis.ownerId, actor.userId))
      .orderBy(asc(streamingApis.name), asc(streamingApis.version)),
  ]);
  return { apps: ownApps, apis: ownApis };
}
