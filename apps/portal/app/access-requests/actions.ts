"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";

import type { FormState } from "@/lib/actions/form-state";
import { runFormAction } from "@/lib/actions/run-form-action";
import { approveAccessRequest } from "@/lib/domain/access-requests/approve-access-request";
import { createAccessRequest } from "@/lib/domain/access-requests/create-access-request";
import { rejectAccessRequest } from "@/lib/domain/access-requests/reject-access-request";
import { withdrawAccessRequest } from "@/lib/domain/access-requests/withdraw-access-request";
import { createAccessRequestInput, rejectAccessRequestInput } from "@/lib/validation/access-requests";

const text = (form: FormData, name: string) => String(form.get(name) ?? "");

export async function createAccessRequestAction(_prev: FormState, form: FormData): Promise<FormState> {
  const appId = text(form, "appId");
  if (!appId) return { ok: false, message: "Please fix the fields marked below.", fieldErrors: { appId: "choose one of your apps" } };
  const read = (f: FormData) => ({
    apiId: text(f, "apiId"),
    // "Chosen endpoints" with none ticked sends [], which the schema refuses by name.
    endpointIds: text(f, "scope") === "api" ? undefined : f.getAll("endpointIds").map(String),
    operations: f.getAll("operations").map(String),
    justification: text(f, "justification"),
    planId: text(f, "planId") || undefined,
  });
  const state = await runFormAction(form, { role: "viewer", read, schema: createAccessRequestInput }, async ({ db, actor, input }) => {
    await createAccessRequest({ db, actor, appId, input });
  });
  if (state.ok) {
    revalidatePath(`/apps/${appId}`);
    revalidatePath("/access-requests");
    redirect(`/apps/${appId}#access-requests-heading`);
  }
  return state;
}

export async function approveAccessRequestAction(_prev: FormState, form: FormData): Promise<FormState> {
  return runFormAction(form, "viewer", async ({ db, actor }) => {
    const { grants } = await approveAccessRequest({ db, actor, requestId: text(form, "requestId") });
    const granted = [...grants.created, ...grants.extended].map((g) => g.endpointPattern);
    return {
      ok: true,
      message: granted.length ? `Approved: granted ${granted.join(", ")}.` : "Approved: the app already had this access.",
    };
  });
}

export async function rejectAccessRequestAction(_prev: FormState, form: FormData): Promise<FormState> {
  const read = (f: FormData) => ({ reason: text(f, "reason") });
  return runFormAction(form, { role: "viewer", read, schema: rejectAccessRequestInput }, async ({ db, actor, input }) => {
    const request = await rejectAccessRequest({ db, actor, requestId: text(form, "requestId"), input });
    return { ok: true, message: `Rejected: “${request.reason}”.` };
  });
}

export async function withdrawAccessRequestAction(_prev: FormState, form: FormData): Promise<FormState> {
  return runFormAction(form, "viewer", async ({ db, actor }) => {
    const request = await withdrawAccessRequest({ db, actor, requestId: text(form, "requestId") });
    revalidatePath(`/apps/${request.appId}`);
    return { ok: true, message: "Withdrawn." };
  });
}
