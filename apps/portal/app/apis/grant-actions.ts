"use server";

import { revalidatePath } from "next/cache";

import type { FormState } from "@/lib/actions/form-state";
import { formObject, runFormAction } from "@/lib/actions/run-form-action";
import { grantEndpoints } from "@/lib/domain/grants/grant-endpoints";
import { grantEndpointsInput } from "@/lib/validation/apps";

const text = (form: FormData, name: string) => String(form.get(name) ?? "");

/** "Grant to an app…" on an endpoint or API page. */
export async function grantFromCatalogAction(_prev: FormState, form: FormData): Promise<FormState> {
  const apiId = text(form, "apiId");
  const read = (f: FormData) => ({
    appId: text(f, "appId"),
    endpointIds: f.getAll("endpointIds").map(String),
    operations: f.getAll("operations").map(String),
    planId: text(f, "planId") || null,
  });
  return runFormAction(form, { role: "editor", read, schema: grantEndpointsInput }, async ({ db, actor, input }) => {
    const grants = await grantEndpoints({ db, actor, apiId, ...input });
    revalidatePath(`/apps/${input.appId}`);
    const warnings = grants.flatMap((g) => g.warnings.map((w) => w.message));
    return {
      ok: true,
      message: `Granted ${grants.map((g) => `${g.endpointPattern} (${g.operations.join(", ")})`).join(", ")}.`,
      warnings: warnings.length ? warnings : undefined,
      // Kept after success too: the dialog links to the chosen app and keeps its choices.
      values: formObject(form),
    };
  });
}
