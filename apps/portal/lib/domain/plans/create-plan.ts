// The API's owner, editors and admins define its plans. A new plan governs
// nothing until a grant names it, so no catalog record changes here.
import { plans } from "@sluice/db";

import type { Actor } from "../../auth/actor";
import type { Database } from "../../db";
import { translateConstraint } from "../../errors";
import { recordChange } from "../../outbox/record-change";
import type { CreatePlanInput } from "../../validation/plans";
import { loadApiForPlans, toPlanView } from "./plan-view";

export const PLAN_CONSTRAINTS = {
  plans_api_name_key: { field: "name", message: "the API already has a plan of this name" },
  plans_name_length: { field: "name", message: "must be 1 to 40 characters" },
};

export async function createPlan(options: { db: Database; actor: Actor; apiId: string; input: CreatePlanInput }) {
  const { input } = options;
  try {
    return await options.db.transaction(async (tx) => {
      const api = await loadApiForPlans(tx, options.actor, options.apiId);
      const [plan] = await tx
        .insert(plans)
        .values({ apiId: api.id, name: input.name, description: input.description, autoApprove: input.autoApprove, ...input.limits })
        .returning();
      await recordChange(tx, options.actor, { action: "plan.create", entityType: "plan", entityId: plan!.id, after: plan });
      return toPlanView(plan!);
    });
  } catch (err) {
    translateConstraint(err, PLAN_CONSTRAINTS);
  }
}
