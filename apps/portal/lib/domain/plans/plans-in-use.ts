// Why each plan of an API cannot be deleted right now (deletePlan refuses a plan
// with grants under it or pending requests for it), so the API page offers
// "Delete" only on plans it would delete and says what blocks the others.
import { accessRequests, appGrants, plans } from "@sluice/db";
import { and, count, eq } from "drizzle-orm";

import type { DbOrTx } from "../../db";

export interface PlanUse {
  grants: number;
  pendingRequests: number;
}

export async function plansInUse(options: { db: DbOrTx; apiId: string }): Promise<Map<string, PlanUse>> {
  const [grants, pending] = await Promise.all([
    options.db
      .select({ planId: appGrants.planId, n: count() })
      .from(appGrants)
      .innerJoin(plans, eq(plans.id, appGrants.planId))
      .where(eq(plans.apiId, options.apiId))
      .groupBy(appGrants.planId),
    options.db
      .select({ planId: accessRequests.planId, n: count() })
      .from(accessRequests)
      .innerJoin(plans, eq(plans.id, accessRequests.planId))
      .where(and(eq(plans.apiId, options.apiId), eq(accessRequests.state, "pending")))
      .groupBy(accessRequests.planId),
  ]);
  const uses = new Map<string, PlanUse>();
  const use = (planId: string) => uses.get(planId) ?? uses.set(planId, { grants: 0, pendingRequests: 0 }).get(planId)!;
  for (const g of grants) if (g.planId) use(g.planId).grants = g.n;
  for (const p of pending) if (p.planId) use(p.planId).pendingRequests = p.n;
  return uses;
}
