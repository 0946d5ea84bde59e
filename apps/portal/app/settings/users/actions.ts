"use server";

import { revalidatePath } from "next/cache";

import type { FormState } from "@/lib/actions/form-state";
import { runFormAction } from "@/lib/actions/run-form-action";
import { inviteUser } from "@/lib/domain/users/invite-user";
import { updateUser } from "@/lib/domain/users/update-user";
import { inviteUserInput, updateUserInput } from "@/lib/validation/users";

const readInvite = (form: FormData) => ({ email: form.get("email"), displayName: form.get("displayName") ?? "", role: form.get("role") });

function readUpdate(form: FormData) {
  const disabled = form.get("disabled");
  return { role: form.get("role") ?? undefined, disabled: disabled === null ? undefined : disabled === "true" };
}

export async function inviteUserAction(_prev: FormState, form: FormData): Promise<FormState> {
  return runFormAction(form, { role: "admin", read: readInvite, schema: inviteUserInput }, async ({ db, actor, input }) => {
    const { inviteUrl, user } = await inviteUser({ db, actor, input });
    revalidatePath("/settings/users");
    return { ok: true, message: `Invitation for ${user.email} created. Send them this link (valid 7 days).`, secret: inviteUrl };
  });
}

export async function updateUserAction(_prev: FormState, form: FormData): Promise<FormState> {
  return runFormAction(form, { role: "admin", read: readUpdate, schema: updateUserInput }, async ({ db, actor, input }) => {
    await updateUser({ db, actor, userId: String(form.get("userId")), input });
    revalidatePath("/settings/users");
    return { ok: true, message: "Saved." };
  });
}
