// The one wrapper every server action goes through: a signed-in session, the
// session's CSRF token echoed in the form, at least the given role; domain
// errors become form state naming the fields. Next.js also rejects server
// actions whose Origin differs from the host; the token is a second, explicit line.
import { unstable_rethrow } from "next/navigation";

import { hasRole, actorFromUser, type Actor, type Role } from "../auth/actor";
import { currentSession } from "../auth/current-user";
import { constantTimeEqual } from "../auth/secrets";
import { getDb, type Database } from "../db";
import { AppError } from "../errors";
import { CSRF_FIELD } from "./csrf-field";
import type { FormState } from "./form-state";

export { CSRF_FIELD };

export async function runFormAction(
  form: FormData,
  least: Role,
  run: (ctx: { actor: Actor; db: Database }) => Promise<FormState | void>,
): Promise<FormState> {
  const values = formObject(form);
  const session = await currentSession();
  if (!session) return { ok: false, message: "Your session has ended. Sign in again.", values };
  const sent = form.get(CSRF_FIELD);
  if (typeof sent !== "string" || !constantTimeEqual(sent, session.csrfToken)) {
    return { ok: false, message: "This form has expired (security token mismatch). Reload the page and try again.", values };
  }
  const actor = actorFromUser(session.user, { kind: "session" });
  if (!hasRole(actor, least)) return { ok: false, message: `This needs the ${least} role.`, values };
  try {
    return (await run({ actor, db: getDb() })) ?? { ok: true };
  } catch (err) {
    unstable_rethrow(err); // redirect() and notFound() are control flow, not failures
    if (err instanceof AppError) return { ...fromAppError(err), values };
    console.error("server action failed", err);
    return { ok: false, message: "Something went wrong on our side; the change was not saved.", values };
  }
}

export function fromAppError(err: AppError): FormState {
  const fieldErrors: Record<string, string> = {};
  for (const e of err.fieldErrors) fieldErrors[e.field] ??= e.message;
  return { ok: false, message: err.fieldErrors.length ? "Please fix the fields marked below." : err.message, fieldErrors };
}

/** Form values as a plain object; repeated names (checkbox groups) become arrays; passwords are left out. */
export function formObject(form: FormData): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of form.entries()) {
    if (name === CSRF_FIELD || name.startsWith("$ACTION") || /password/i.test(name) || typeof value !== "string") continue;
    const prev = out[name];
    out[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return out;
}
