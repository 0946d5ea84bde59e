// Removing a grant stops new tokens from asking for it. Tokens already minted
// keep their permissions until they expire or are revoked (the page says so).
// A grant under a plan takes its pattern out of the app's limits: the app
// record goes out again.
import { appGrants } from "@sluice/db";
import { and, eq } from "drizzle-orm";

import type { AuthorizedActor } from "../../auth/actor";
import { recordChange } from "../../outbox/record-change";
import type { Database } from "../../db";
import { notFound } from "../../errors";
import { currentAppRecords } from "../apps/current-app-records";
import { loadApp } from "../apps/load-app";

export async function removeGrant(options: { db: Database; actor: AuthorizedActor<"editor">; appId: string; grantId: string }) {
  return options.db.transaction(async (tx) => {
    const app = await loadApp({ db: tx, actor: options.actor, appId: options.appId, lock: "update" });
    const [before] = await tx
      .delete(appGrants)
      .where(and(eq(appGrants.id, options.grantId), eq(appGrants.appId, app.id)))
      .returning();
    if (!before) throw notFound("The grant");
    await recordChange(tx, options.actor, {
      action: "grant.delete",
      entityType: "app_grant",
      entityId: before.id,
      before,
      catalog: before.planId ? await currentAppRecords(tx, [app.id]) : [],
    });
    return before;
  });
}
