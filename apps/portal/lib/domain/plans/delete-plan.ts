// A plan in use is not deleted: 409 naming the grants under it (and the pending
// requests asking for it). Deleting it would silently lift those apps' limits;
// the decider moves the grants to another plan (or none) first, which is a
// visible, audited change per app. Decided requests that named the plan lose
// the reference (their audit entries keep it).
import { accessRequests, appGrants, apps, plans } from "@sluice/db";
import { and, asc, eq } from "drizzle-orm";

import type { Actor } from "../../auth/actor";
import type { Database } from "../../db";
import { conflict } from "../../errors";
import { recordChange } from "../../outbox/record-change";
import { loadApiForPlans, loadPlan } from "./plan-view";

export async function deletePlan(options: { db: Database; actor: Actor; apiId: string; planId: string }) {
  return options.db.transaction(async (tx) => {
    const api = await loadApiForPlans(tx, options.actor, options.apiId);
    const before = await loadPlan(tx, api.id, options.planId, "update");
    const inUse = await tx
      .select({ app: apps.name, pattern: appGrants.endpointPattern })
      .from(appGrants)
      .innerJoin(apps, eq(apps.id, appGrants.appId))
      .where(eq(appGrants.planId, before.id))
      .orderBy(asc(apps.name), asc(appGrants.endpointPattern));
    if (inUse.length) {
      const named = inUse.slice(0, 10).map((g) => `${g.app} ${g.pattern}`);
      const more = inUse.length > named.length ? ` and ${inUse.length - named.length} more` : "";
      throw conflict(
        "planId",
        `the plan is in use by ${inUse.length} grant(s): ${named.join(", ")}${more}; move them to another plan first`,
      );
    }
    const pending = await tx
      .select({ id: accessRequests.id })
      .from(accessRequests)
      .where(and(eq(accessRequests.planId, before.id), eq(accessRequests.state, "pending")));
    if (pending.length)
      throw conflict(
        "planId",
        `${pending.length} pending access request(s) ask for this plan: ${pending.map((p) => p.id).join(", ")}; decide them first`,
      );
    await tx.delete(plans).where(eq(plans.id, before.id));
    await recordChange(tx, options.actor, { action: "plan.delete", entityType: "plan", entityId: before.id, before });
  });
}
