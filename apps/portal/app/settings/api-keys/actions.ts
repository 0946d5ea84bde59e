"use server";

import { revalidatePath } from "next/cache";

import type { FormState } from "@/lib/actions/form-state";
import { runFormAction } from "@/lib/actions/run-form-action";
import { createApiKey } from "@/lib/domain/api-keys/create-api-key";
import { revokeApiKey } from "@/lib/domain/api-keys/revoke-api-key";

export async function createApiKeyAction(_prev: FormState, form: FormData): Promise<FormState> {
  return runFormAction(form, "viewer", async ({ db, actor }) => {
    const days = String(form.get("expiresInDays") ?? "").trim();
    const { key } = await createApiKey({ db, actor, input: { name: form.get("name"), expiresInDays: days ? Number(days) : undefined } });
    revalidatePath("/settings/api-keys");
    return { ok: true, message: "API key created.", secret: key };
  });
}

export async function revokeApiKeyAction(_prev: FormState, form: FormData): Promise<FormState> {
  return runFormAction(form, "viewer", async ({ db, actor }) => {
    await revokeApiKey({ db, actor, keyId: String(form.get("keyId")) });
    revalidatePath("/settings/api-keys");
    return { ok: true, message: "API key revoked." };
  });
}
