"use server";

import { revalidatePath } from "next/cache";

import type { FormState } from "@/lib/actions/form-state";
import { runFormAction } from "@/lib/actions/run-form-action";
import { rotateSigningKey } from "@/lib/domain/signing-keys/rotate-signing-key";

export async function rotateSigningKeyAction(_prev: FormState, form: FormData): Promise<FormState> {
  return runFormAction(form, "admin", async ({ db, actor }) => {
    const { active, retired } = await rotateSigningKey({ db, actor });
    revalidatePath("/settings/signing-keys");
    return {
      ok: true,
      message: `New tokens are signed with ${active.kid}.${retired ? ` ${retired.kid} is retired and stays in the JWKS until its tokens expire.` : ""}`,
    };
  });
}
