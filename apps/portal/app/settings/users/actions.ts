"use server";

import { revalidatePath } from "next/cache";

import type { FormState } from "@/lib/actions/form-state";
import { runFormAction } from "@/lib/actions/run-form-action";
import { inviteUser } from "@/lib/domain/users/invite-user";
import { updateUser } from "@/lib/domain/users/update-user";

export async function inviteUserAction(_prev: FormState, form: FormData): Promise<FormState> {
  return runFormAction(form, "admin", async ({ db, actor }) => {
    const { inviteUrl, user } = await inviteUser({
      db,
      actor,
      input: { email: form.get("email"), displayName: form.get("displayName") ?? "", role: form.get("role") },
    });
    revalidatePath("/settings/users");
    return { ok: true, message: `Invitation for ${user.email} created. Send them this link (valid 7 days).`, secret: inviteUrl };
  });
}

export async function updateUserAction(_prev: FormState, form: FormData): Promise<FormState> {
  return runFormAction(form, "admin", async ({ db, actor }) => {
    const disabled = form.get("disabled");
    await updateUser({
      db,
      actor,
      userId: String(form.get("userId")),
      input: { role: form.get("role") ?? undefined, disabled: disabled === null ? undefined : disabled === "true" },
    });
    revalidatePath("/settings/users");
    return { ok: true, message: "Saved." };
  });
}
