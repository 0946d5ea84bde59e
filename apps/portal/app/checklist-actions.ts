"use server";

import { revalidatePath } from "next/cache";

import type { FormState } from "@/lib/actions/form-state";
import { runFormAction } from "@/lib/actions/run-form-action";
import { setChecklistDismissed } from "@/lib/domain/checklist/dismiss-checklist";

/** Hides the caller's getting-started checklist on the home page (every signed-in user has their own). */
export async function dismissChecklistAction(_prev: FormState, form: FormData): Promise<FormState> {
  return runFormAction(form, "viewer", async ({ db, actor }) => {
    await setChecklistDismissed({ db, actor, dismissed: true });
    revalidatePath("/");
    return { ok: true, message: "The checklist is hidden. Settings → Account shows it again." };
  });
}

/** Brings the checklist back (Settings → Account). */
export async function showChecklistAction(_prev: FormState, form: FormData): Promise<FormState> {
  return runFormAction(form, "viewer", async ({ db, actor }) => {
    await setChecklistDismissed({ db, actor, dismissed: false });
    revalidatePath("/");
    revalidatePath("/settings/account");
    return { ok: true, message: "The getting-started checklist is back on the home page." };
  });
}
