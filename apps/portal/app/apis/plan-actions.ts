"use server";

import { revalidatePath } from "next/cache";

import type { FormState } from "@/lib/actions/form-state";
import { runFormAction } from "@/lib/actions/run-form-action";
import { AppError } from "@/lib/errors";
import { createPlan } from "@/lib/domain/plans/create-plan";
import { deletePlan } from "@/lib/domain/plans/delete-plan";
import { updatePlan } from "@/lib/domain/plans/update-plan";
import { createPlanInput, updatePlanInput } from "@/lib/validation/plans";
import { PLAN_LIMITS } from "@sluice/db";

const text = (form: FormData, name: string) => String(form.get(name) ?? "");

/** The form's limits: an empty box is no limit (null); anything else must be a whole number, or the field is named. */
function readPlan(form: FormData) {
  const limits: Record<string, number | null> = {};
  for (const limit of PLAN_LIMITS) {
    const raw = text(form, limit).trim().replaceAll(",", "").replaceAll("_", "");
    if (raw === "") limits[limit] = null;
    else if (/^-?\d+$/.test(raw)) limits[limit] = Number(raw);
    else
      throw new AppError("validation_failed", 422, `limits.${limit}: must be a whole number, or empty for no limit`, [
        { field: `limits.${limit}`, message: "must be a whole number, or empty for no limit" },
      ]);
  }
  return { name: text(form, "name"), description: text(form, "description"), limits, autoApprove: form.get("autoApprove") === "on" };
}

export async function createPlanAction(_prev: FormState, form: FormData): Promise<FormState> {
  const apiId = text(form, "apiId");
  return runFormAction(form, { role: "viewer", read: readPlan, schema: createPlanInput }, async ({ db, actor, input }) => {
    const plan = await createPlan({ db, actor, apiId, input });
    revalidatePath(`/apis/${apiId}`);
    return { ok: true, message: `Plan “${plan!.name}” created.` };
  });
}

export async function updatePlanAction(_prev: FormState, form: FormData): Promise<FormState> {
  const apiId = text(form, "apiId");
  return runFormAction(form, { role: "viewer", read: readPlan, schema: updatePlanInput }, async ({ db, actor, input }) => {
    const plan = await updatePlan({ db, actor, apiId, planId: text(form, "planId"), input });
    revalidatePath(`/apis/${apiId}`);
    return { ok: true, message: `Plan “${plan!.name}” saved.` };
  });
}

export async function deletePlanAction(_prev: FormState, form: FormData): Promise<FormState> {
  const apiId = text(form, "apiId");
  return runFormAction(form, "viewer", async ({ db, actor }) => {
    await deletePlan({ db, actor, apiId, planId: text(form, "planId") });
    revalidatePath(`/apis/${apiId}`);
    return { ok: true, message: "Plan deleted." };
  });
}
