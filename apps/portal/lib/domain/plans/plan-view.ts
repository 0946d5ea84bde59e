// What the portal shows and the API returns for a plan, and who may change an
// API's plans: its owner, editors and admins (the people who decide its access
// requests). Every signed-in user may read them, as the rest of the catalog:
// a requester chooses one.
import { PLAN_LIMITS, plans, streamingApis, type Plan, type PlanLimit } from "@sluice/db";
import { eq } from "drizzle-orm";

import { hasRole, type Actor } from "../../auth/actor";
import type { DbOrTx } from "../../db";
import { forbidden, notFound } from "../../errors";

export type PlanLimitValues = Record<PlanLimit, number | null>;

export interface PlanView {
  id: string;
  apiId: string;
  name: string;
  description: string;
  limits: PlanLimitValues;
  autoApprove: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export function toPlanView(plan: Plan): PlanView {
  const limits = Object.fromEntries(PLAN_LIMITS.map((l) => [l, plan[l]])) as PlanLimitValues;
  return {
    id: plan.id,
    apiId: plan.apiId,
    name: plan.name,
    description: plan.description,
    limits,
    autoApprove: plan.autoApprove,
    createdAt: plan.createdAt,
    updatedAt: plan.updatedAt,
  };
}

export function canManagePlans(actor: Actor, api: { ownerId: string | null }): boolean {
  return hasRole(actor, "editor") || (api.ownerId !== null && api.ownerId === actor.userId);
}

/** The API, for a change to its plans: 404 when it does not exist, 403 for anyone but its owner, editors and admins. */
export async function loadApiForPlans(db: DbOrTx, actor: Actor, apiId: string) {
  const [api] = await db
    .select({ id: streamingApis.id, ownerId: streamingApis.ownerId })
    .from(streamingApis)
    .where(eq(streamingApis.id, apiId));
  if (!api) throw notFound("The API");
  if (!canManagePlans(actor, api)) throw forbidden("Only the API's owner, editors and admins change its plans.");
  return api;
}

/** A plan of the API, locked when asked (a change to it, or a grant or request naming it). */
export async function loadPlan(db: DbOrTx, apiId: string, planId: string, lock?: "update" | "share") {
  const query = db.select().from(plans).where(eq(plans.id, planId));
  const [plan] = lock ? await query.for(lock) : await query;
  if (!plan || plan.apiId !== apiId) throw notFound("The plan");
  return plan;
}
