"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";

import type { FormState } from "@/lib/actions/form-state";
import { formObject, runFormAction } from "@/lib/actions/run-form-action";
import { createApp } from "@/lib/domain/apps/create-app";
import { deleteApp } from "@/lib/domain/apps/delete-app";
import { updateApp } from "@/lib/domain/apps/update-app";
import { addGrant } from "@/lib/domain/grants/add-grant";
import { removeGrant } from "@/lib/domain/grants/remove-grant";
import { updateGrant } from "@/lib/domain/grants/update-grant";
import { mintToken } from "@/lib/domain/tokens/mint-token";
import { revokeAllTokens } from "@/lib/domain/tokens/revoke-all-tokens";
import { revokeToken } from "@/lib/domain/tokens/revoke-token";
import { addGrantInput, createAppInput, updateAppInput, updateGrantInput } from "@/lib/validation/apps";
import { mintTokenInput } from "@/lib/validation/tokens";

const text = (form: FormData, name: string) => String(form.get(name) ?? "");
const appInput = (form: FormData) => ({ name: text(form, "name"), description: text(form, "description") });
const list = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

export async function createAppAction(_prev: FormState, form: FormData): Promise<FormState> {
  let appId: string | undefined;
  const state = await runFormAction(form, { role: "viewer", read: appInput, schema: createAppInput }, async ({ db, actor, input }) => {
    const app = await createApp({ db, actor, input });
    appId = app!.id;
  });
  if (state.ok && appId) {
    revalidatePath("/apps");
    redirect(`/apps/${appId}`);
  }
  return state;
}

export async function updateAppAction(_prev: FormState, form: FormData): Promise<FormState> {
  const appId = text(form, "appId");
  const state = await runFormAction(form, { role: "viewer", read: appInput, schema: updateAppInput }, async ({ db, actor, input }) => {
    await updateApp({ db, actor, appId, input });
    revalidatePath(`/apps/${appId}`);
    return { ok: true, message: "App saved." };
  });
  return state;
}

export async function deleteAppAction(_prev: FormState, form: FormData): Promise<FormState> {
  const state = await runFormAction(form, "viewer", async ({ db, actor }) => {
    await deleteApp({ db, actor, appId: text(form, "appId") });
  });
  if (state.ok) {
    revalidatePath("/apps");
    redirect("/apps");
  }
  return state;
}

export async function addGrantAction(_prev: FormState, form: FormData): Promise<FormState> {
  const appId = text(form, "appId");
  const read = (f: FormData) => ({
    endpointPattern: text(f, "endpointPattern").trim(),
    operations: f.getAll("operations").map(String),
    planId: text(f, "planId") || null,
  });
  const confirmed = text(form, "confirm") === "1";
  const state = await runFormAction(form, { role: "editor", read, schema: addGrantInput }, async ({ db, actor, input }) => {
    // A grant that matches no endpoint or topic is shown first, with every check run but nothing saved; the user confirms or edits.
    if (!confirmed) {
      const preview = await addGrant({ db, actor, appId, input, dryRun: true });
      if (preview.warnings.length)
        return {
          ok: false,
          message: `${preview.endpointPattern} is not saved yet: check the warnings, then grant it anyway or change it.`,
          warnings: preview.warnings.map((w) => w.message),
          values: formObject(form),
        };
    }
    const grant = await addGrant({ db, actor, appId, input });
    revalidatePath(`/apps/${appId}`);
    return { ok: true, message: `Granted ${grant.endpointPattern}.` };
  });
  return state;
}

export async function setGrantPlanAction(_prev: FormState, form: FormData): Promise<FormState> {
  const appId = text(form, "appId");
  const read = (f: FormData) => ({ planId: text(f, "planId") || null });
  return runFormAction(form, { role: "editor", read, schema: updateGrantInput }, async ({ db, actor, input }) => {
    await updateGrant({ db, actor, appId, grantId: text(form, "grantId"), input });
    revalidatePath(`/apps/${appId}`);
    return { ok: true, message: "Plan set." };
  });
}

export async function removeGrantAction(_prev: FormState, form: FormData): Promise<FormState> {
  const appId = text(form, "appId");
  return runFormAction(form, "editor", async ({ db, actor }) => {
    await removeGrant({ db, actor, appId, grantId: text(form, "grantId") });
    revalidatePath(`/apps/${appId}`);
    return { ok: true, message: "Grant removed." };
  });
}

export async function mintTokenAction(_prev: FormState, form: FormData): Promise<FormState> {
  const appId = text(form, "appId");
  const values = formObject(form);
  const sub = list(values.sub);
  const pub = list(values.pub);
  // A pattern chosen for both operations becomes one `all` entry.
  const permissions = {
    sub: sub.filter((p) => !pub.includes(p)),
    pub: pub.filter((p) => !sub.includes(p)),
    all: sub.filter((p) => pub.includes(p)),
  };
  const read = (f: FormData) => ({
    permissions,
    lifetimeSeconds: Number(text(f, "lifetimeSeconds")),
    description: text(f, "tokenDescription"),
  });
  const state = await runFormAction(form, { role: "viewer", read, schema: mintTokenInput }, async ({ db, actor, input }) => {
    const { token } = await mintToken({ db, actor, appId, input });
    revalidatePath(`/apps/${appId}`);
    return { ok: true, message: "Token minted.", secret: token };
  });
  if (state.fieldErrors?.description) state.fieldErrors.tokenDescription = state.fieldErrors.description;
  return state;
}

export async function revokeTokenAction(_prev: FormState, form: FormData): Promise<FormState> {
  const appId = text(form, "appId");
  return runFormAction(form, "viewer", async ({ db, actor }) => {
    await revokeToken({ db, actor, appId, jti: text(form, "jti") });
    revalidatePath(`/apps/${appId}`);
    return { ok: true, message: "Token revoked." };
  });
}

export async function revokeAllTokensAction(_prev: FormState, form: FormData): Promise<FormState> {
  const appId = text(form, "appId");
  return runFormAction(form, "viewer", async ({ db, actor }) => {
    const { revoked } = await revokeAllTokens({ db, actor, appId });
    revalidatePath(`/apps/${appId}`);
    return { ok: true, message: `Every token issued until now is revoked (${revoked} live token${revoked === 1 ? "" : "s"}).` };
  });
}
