import { appGrants, plans, streamingApis } from "@sluice/db";
import { asc, eq } from "drizzle-orm";

import type { Actor } from "../../auth/actor";
import type { DbOrTx } from "../../db";
import { loadApp } from "../apps/load-app";
import { toPlanView } from "../plans/plan-view";

/** An app's grants, by pattern, each with its plan (and the plan's API); whoever may see the app may read them. */
export async function listGrants(options: { db: DbOrTx; actor: Actor; appId: string }) {
  await loadApp(options);
  const rows = await options.db
    .select({ grant: appGrants, plan: plans, apiName: streamingApis.name })
    .from(appGrants)
    .leftJoin(plans, eq(plans.id, appGrants.planId))
    .leftJoin(streamingApis, eq(streamingApis.id, plans.apiId))
    .where(eq(appGrants.appId, options.appId))
    .orderBy(asc(appGrants.endpointPattern));
  return rows.map(({ grant, plan, apiName }) => ({ ...grant, plan: plan ? { ...toPlanView(plan), apiName: apiName ?? "" } : null }));
}
