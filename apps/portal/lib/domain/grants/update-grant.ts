// Editors and admins move a grant to another plan (or to none): the app's
// record goes out with its new limits in the same transaction.
import { appGrants, plans } from "@sluice/db";
import { and, eq, inArray } from "drizzle-orm";

import type { AuthorizedActor } from "../../auth/actor";
import type { Database } from "../../db";
import { notFound } from "../../errors";
import { recordChange } from "../../outbox/record-change";
import type { UpdateGrantInput } from "../../validation/apps";
import { currentAppRecords } from "../apps/current-app-records";
import { loadApp } from "../apps/load-app";
import { planForGrant } from "./plan-for-grant";

export async function updateGrant(options: {
  db: Database;
  actor: AuthorizedActor<"editor">;
  appId: string;
  grantId: string;
  input: UpdateGrantInput;
}) {
  return options.db.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(appGrants)
      .where(and(eq(appGrants.id, options.grantId), eq(appGrants.appId, options.appId)));
    if (!current) throw notFound("The grant");
    // Plans before the app (current-app-records.ts): the old one too, so a concurrent plan edit sees this grant either way.
    if (current.planId)
      await tx
        .select({ id: plans.id })
        .from(plans)
        .where(inArray(plans.id, [current.planId]))
        .for("share");
    if (options.input.planId) await planForGrant(tx, options.input.planId, current.endpointPattern);
    const app = await loadApp({ db: tx, actor: options.actor, appId: options.appId, lock: "update" });
    const [before] = await tx.select().from(appGrants).where(eq(appGrants.id, current.id));
    if (!before) throw notFound("The grant");
    const [after] = await tx.update(appGrants).set({ planId: options.input.planId }).where(eq(appGrants.id, before.id)).returning();
    await recordChange(tx, options.actor, {
      action: "grant.update",
      entityType: "app_grant",
      entityId: before.id,
      before,
      after,
      catalog: before.planId === after!.planId ? [] : await currentAppRecords(tx, [app.id]),
    });
    return after!;
  });
}
