import { appGrants } from "@sluice/db";
import { asc, eq } from "drizzle-orm";

import type { Actor } from "../../auth/actor";
import type { DbOrTx } from "../../db";
import { loadApp } from "../apps/load-app";

/** An app's grants, by pattern; whoever may see the app may read them. */
export async function listGrants(options: { db: DbOrTx; actor: Actor; appId: string }) {
  await loadApp(options);
  return options.db.select().from(appGrants).where(eq(appGrants.appId, options.appId)).orderBy(asc(appGrants.endpointPattern));
}
