import { plans, streamingApis } from "@sluice/db";
import { asc, eq, sql } from "drizzle-orm";

import type { Actor, AuthorizedActor } from "../../auth/actor";
import type { DbOrTx } from "../../db";
import { notFound } from "../../errors";
import { toPlanView, type PlanView } from "./plan-view";

/** An API's plans by name; every signed-in user may read them (they choose one when requesting access). */
export async function listPlans(options: { db: DbOrTx; actor: Actor; apiId: string }): Promise<PlanView[]> {
  const [api] = await options.db.select({ id: streamingApis.id }).from(streamingApis).where(eq(streamingApis.id, options.apiId));
  if (!api) throw notFound("The API");
  const rows = await options.db
    .select()
    .from(plans)
    .where(eq(plans.apiId, api.id))
    .orderBy(asc(sql`lower(${plans.name})`), asc(plans.id));
  return rows.map(toPlanView);
}

/** One plan of an API, for every signed-in user. */
export async function getPlan(options: { db: DbOrTx; actor: Actor; apiId: string; planId: string }): Promise<PlanView> {
  const [plan] = await options.db.select().from(plans).where(eq(plans.id, options.planId));
  if (!plan || plan.apiId !== options.apiId) throw notFound("The plan");
  return toPlanView(plan);
}

/** Every plan with its API's name and version, by API then plan: what an editor may put a grant under. */
export async function listPlanChoices(options: { db: DbOrTx; actor: AuthorizedActor<"editor"> }) {
  return options.db
    .select({ id: plans.id, name: plans.name, apiName: streamingApis.name, apiVersion: streamingApis.version })
    .from(plans)
    .innerJoin(streamingApis, eq(streamingApis.id, plans.apiId))
    .orderBy(asc(streamingApis.name), asc(streamingApis.version), asc(sql`lower(${plans.name})`));
}
