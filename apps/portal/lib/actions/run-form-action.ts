// The one wrapper every server action goes through: a signed-in session, the
// session's CSRF token echoed in the form, at least the given role, then the
// form's input parsed with its schema; domain errors become form state naming
// the fields. The role check and the parsing happen here once: the domain
// function takes the authorized actor and the typed input as they are. Next.js
// also rejects server actions whose Origin differs from the host; the token is
// a second, explicit line.
import { unstable_rethrow } from "next/navigation";
import type { z } from "zod";

import { actorFromUser, tryAuthorize, type AuthorizedActor, type Role } from "../auth/actor";
import { currentSession } from "../auth/current-user";
import { constantTimeEqual } from "../auth/secrets";
import { databaseUnavailable } from "../database-unavailable";
import { getDb, type Database } from "../db";
import { AppError } from "../errors";
import { parseInput } from "../validation/parse";
import { CSRF_FIELD } from "./csrf-field";
import type { FormState } from "./form-state";

export { CSRF_FIELD };

/** FormRule says who may submit a form and, for a form with input, how to read it and its schema. */
export type FormRule<R extends Role, S extends z.ZodType> = R | { role: R; read: (form: FormData) => unknown; schema: S };

export async function runFormAction<R extends Role, S extends z.ZodType = z.ZodNever>(
  form: FormData,
  rule: FormRule<R, S>,
  // biome-ignore lint/suspicious/noConfusingVoidType: most actions end in redirect() and return nothing; `void` lets them be written without a bare `return undefined`.
  run: (ctx: { actor: AuthorizedActor<R>; db: Database; input: z.output<S> }) => Promise<FormState | void>,
): Promise<FormState> {
  const least = typeof rule === "string" ? rule : rule.role;
  const values = formObject(form);
  const session = await currentSession();
  if (!session) return { ok: false, message: "Your session has ended. Sign in again.", values };
  const sent = form.get(CSRF_FIELD);
  if (typeof sent !== "string" || !constantTimeEqual(sent, session.csrfToken)) {
    return { ok: false, message: "This form has expired (security token mismatch). Reload the page and try again.", values };
  }
  // The one role check of a server action: the domain function takes the authorized actor as it is.
  const actor = tryAuthorize(actorFromUser(session.user, { kind: "session" }), least);
  if (!actor) return { ok: false, message: `This needs the ${least} role.`, values };
  try {
    // Read inside the try: a reader refuses what the schema cannot say (a JSON field that does not parse) with an AppError.
    const input = typeof rule === "string" ? (undefined as never) : parseInput(rule.schema, rule.read(form));
    return (await run({ actor, db: getDb(), input })) ?? { ok: true };
  } catch (err) {
    unstable_rethrow(err); // redirect() and notFound() are control flow, not failures
    if (err instanceof AppError) return { ...fromAppError(err), values };
    const outage = databaseUnavailable(err);
    if (outage) return { ...fromAppError(outage), values };
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
