// Changing a plan's limits or name changes the record of every app with a grant
// under it: the plan row is locked first (grants and requests naming it wait),
// then those apps (currentAppRecords), and their records go out in the same
// transaction, so every gateway applies the new limits.
import { appGrants, plans } from "@sluice/db";
import { eq } from "drizzle-orm";

import type { Actor } from "../../auth/actor";
import type { Database } from "../../db";
import { translateConstraint } from "../../errors";
import { recordChange } from "../../outbox/record-change";
import type { UpdatePlanInput } from "../../validation/plans";
import { currentAppRecords } from "../apps/current-app-records";
import { PLAN_CONSTRAINTS } from "./create-plan";
import { loadApiForPlans, loadPlan, toPlanView } from "./plan-view";

export async function updatePlan(options: { db: Database; actor: Actor; apiId: string; planId: string; input: UpdatePlanInput }) {
  const { input } = options;
  try {
    return await options.db.transaction(async (tx) => {
      const api = await loadApiForPlans(tx, options.actor, options.apiId);
      const before = await loadPlan(tx, api.id, options.planId, "update");
      const [after] = await tx
        .update(plans)
        .set({
          name: input.name ?? before.name,
          description: input.description ?? before.description,
          autoApprove: input.autoApprove ?? before.autoApprove,
          ...input.limits,
          updatedAt: new Date(),
        })
        .where(eq(plans.id, before.id))
        .returning();
      const users = await tx.selectDistinct({ appId: appGrants.appId }).from(appGrants).where(eq(appGrants.planId, before.id));
      await recordChange(tx, options.actor, {
        action: "plan.update",
        entityType: "plan",
        entityId: before.id,
        before,
        after,
        catalog: await currentAppRecords(
          tx,
          users.map((u) => u.appId),
        ),
      });
      return toPlanView(after!);
    });
  } catch (err) {
    translateConstraint(err, PLAN_CONSTRAINTS);
  }
}
