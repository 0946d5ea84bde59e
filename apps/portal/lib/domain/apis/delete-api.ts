// Deleting an API deletes its endpoints (ON DELETE CASCADE) and tombstones each
// of them on the catalog topic, so gateways end their subscriptions. Its plans
// go too: grants under them are kept without a plan (their patterns may reach
// endpoints defined later), and the records of those apps go out without them.
import { appGrants, endpoints, plans, streamingApis } from "@sluice/db";
import { asc, eq, inArray } from "drizzle-orm";

import type { AuthorizedActor } from "../../auth/actor";
import { endpointTombstone } from "../../catalog/records";
import { recordChange } from "../../outbox/record-change";
import type { Database } from "../../db";
import { notFound } from "../../errors";
import { currentAppRecords } from "../apps/current-app-records";

export async function deleteApi(options: {
  db: Database;
  actor: AuthorizedActor<"editor">;
  apiId: string;
}): Promise<{ deletedEndpoints: number }> {
  return options.db.transaction(async (tx) => {
    const [before] = await tx.select().from(streamingApis).where(eq(streamingApis.id, options.apiId)).for("update");
    if (!before) throw notFound("The API");
    const gone = await tx
      .select({ id: endpoints.id, path: endpoints.path })
      .from(endpoints)
      .where(eq(endpoints.apiId, before.id))
      .orderBy(asc(endpoints.path));
    // Plans before apps (current-app-records.ts); the grants lose their plan before the plans go (the FK restricts).
    const apiPlans = await tx.select({ id: plans.id }).from(plans).where(eq(plans.apiId, before.id)).orderBy(asc(plans.id)).for("update");
    const planIds = apiPlans.map((p) => p.id);
    const unplanned = planIds.length
      ? await tx.update(appGrants).set({ planId: null }).where(inArray(appGrants.planId, planIds)).returning({ appId: appGrants.appId })
      : [];
    await tx.delete(streamingApis).where(eq(streamingApis.id, before.id));
    const appRecords = await currentAppRecords(
      tx,
      unplanned.map((g) => g.appId),
    );
    await recordChange(tx, options.actor, {
      action: "api.delete",
      entityType: "api",
      entityId: before.id,
      before: { ...before, endpointCount: gone.length },
      catalog: [...gone.map((e) => endpointTombstone(e.id)), ...appRecords],
    });
    return { deletedEndpoints: gone.length };
  });
}
