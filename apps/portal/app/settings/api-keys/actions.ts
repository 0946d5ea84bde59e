"use server";

import { revalidatePath } from "next/cache";

import type { FormState } from "@/lib/actions/form-state";
import { runFormAction } from "@/lib/actions/run-form-action";
import { createApiKey } from "@/lib/domain/api-keys/create-api-key";
import { revokeApiKey } from "@/lib/domain/api-keys/revoke-api-key";
import { createApiKeyInput } from "@/lib/validation/api-keys";

function readApiKey(form: FormData) {
  const days = String(form.get("expiresInDays") ?? "").trim();
  return { name: form.get("name"), expiresInDays: days ? Number(days) : undefined };
}

export async function createApiKeyAction(_prev: FormState, form: FormData): Promise<FormState> {
  return runFormAction(form, { role: "viewer", read: readApiKey, schema: createApiKeyInput }, async ({ db, actor, input }) => {
    const { key } = await createApiKey({ db, actor, input });
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
