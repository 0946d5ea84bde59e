"use server";

import { redirect } from "next/navigation";
import { headers } from "next/headers";

import type { FormState } from "@/lib/actions/form-state";
import { formObject, fromAppError } from "@/lib/actions/run-form-action";
import { clientIp, setSessionCookie } from "@/lib/auth/current-user";
import { getDb } from "@/lib/db";
import { signIn } from "@/lib/domain/users/sign-in";
import { AppError } from "@/lib/errors";

/** Only same-site paths, so ?next= cannot send a user elsewhere after sign-in. */
function safeNext(value: FormDataEntryValue | null): string {
  return typeof value === "string" && value.startsWith("/") && !value.startsWith("//") && !value.startsWith("/\\") ? value : "/";
}

// Sign-in has no session yet, so no CSRF token: Next's Origin check on server
// actions and the SameSite cookie guard it (a forged sign-in gains nothing).
export async function signInAction(_prev: FormState, form: FormData): Promise<FormState> {
  try {
    const session = await signIn({
      db: getDb(),
      input: { email: form.get("email"), password: form.get("password") },
      ip: await clientIp(),
      userAgent: (await headers()).get("user-agent") ?? "",
    });
    await setSessionCookie(session.token, session.expiresAt);
  } catch (err) {
    if (err instanceof AppError) {
      const values = formObject(form);
      return err.status === 401 ? { ok: false, message: err.message, values } : { ...fromAppError(err), values };
    }
    throw err;
  }
  redirect(safeNext(form.get("next")));
}
