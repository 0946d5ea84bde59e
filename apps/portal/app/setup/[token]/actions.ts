"use server";

import { headers } from "next/headers";
import { redirect } from "next/navigation";

import type { FormState } from "@/lib/actions/form-state";
import { formObject, fromAppError } from "@/lib/actions/run-form-action";
import { setSessionCookie } from "@/lib/auth/current-user";
import { createSession } from "@/lib/auth/sessions";
import { getDb } from "@/lib/db";
import { completeAccountLink } from "@/lib/domain/users/complete-account-link";
import { AppError } from "@/lib/errors";

// The one-time token in the form is the credential here (there is no session yet).
export async function completeSetupAction(_prev: FormState, form: FormData): Promise<FormState> {
  const password = form.get("password");
  if (password !== form.get("passwordConfirm")) {
    return {
      ok: false,
      message: "Please fix the fields marked below.",
      fieldErrors: { passwordConfirm: "does not match the password" },
      values: formObject(form),
    };
  }
  try {
    const db = getDb();
    const user = await completeAccountLink({
      db,
      token: String(form.get("token") ?? ""),
      input: { email: form.get("email") ?? undefined, displayName: form.get("displayName") ?? "", password },
    });
    const session = await createSession({ db, userId: user.id, userAgent: (await headers()).get("user-agent") ?? "" });
    await setSessionCookie(session.token, session.expiresAt);
  } catch (err) {
    if (err instanceof AppError) return { ...fromAppError(err), values: formObject(form) };
    throw err;
  }
  redirect("/");
}
