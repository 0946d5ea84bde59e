// Who is acting. Every domain function takes an Actor and writes it into the
// audit log; there is no code path that changes data anonymously. The role is
// checked once per call, where the call comes in (the API router, the server
// action wrapper, a page, the portal's own start-up): that check is what turns
// an Actor into an AuthorizedActor, and a domain function that needs a role
// takes only an AuthorizedActor of that role, so no caller can skip the check.
import type { User } from "@sluice/db";

import { forbidden } from "../errors";

export const ROLES = ["viewer", "editor", "admin"] as const;
export type Role = (typeof ROLES)[number];

export interface Actor {
  userId: string;
  email: string;
  role: Role;
  /** How the request was authenticated; the API key's prefix appears in the audit log. */
  via: { kind: "session" } | { kind: "api-key"; keyId: string; prefix: string } | { kind: "system" };
}

export function actorFromUser(user: Pick<User, "id" | "email" | "role">, via: Actor["via"]): Actor {
  return { userId: user.id, email: user.email, role: user.role, via };
}

/** The audit log's text form of the actor (kept when the user is later deleted). */
export function actorLabel(actor: Actor): string {
  return actor.via.kind === "api-key" ? `${actor.email} (API key ${actor.via.prefix})` : actor.email;
}

export function hasRole(actor: Pick<Actor, "role">, least: Role): boolean {
  return ROLES.indexOf(actor.role) >= ROLES.indexOf(least);
}

/** The roles an actor with role R holds (admin ⊃ editor ⊃ viewer). */
type RolesUpTo<R extends Role> = R extends "admin" ? Role : R extends "editor" ? "viewer" | "editor" : "viewer";

/** AUTHORIZED brands an actor whose role was checked; it exists only in the type system. */
declare const AUTHORIZED: unique symbol;

/**
 * AuthorizedActor<R> is an Actor whose role was checked to be at least R. Only
 * authorize / tryAuthorize make one, so a domain function that takes an
 * AuthorizedActor<"editor"> cannot be reached with an unchecked actor; an admin's
 * AuthorizedActor<"admin"> is also an AuthorizedActor<"editor">.
 */
export type AuthorizedActor<R extends Role = "viewer"> = Actor & { readonly [AUTHORIZED]: { readonly [K in RolesUpTo<R>]: true } };

/** tryAuthorize returns the actor as an AuthorizedActor<R> when its role is at least `least`, else undefined (for callers that answer without throwing). */
export function tryAuthorize<R extends Role>(actor: Actor, least: R): AuthorizedActor<R> | undefined {
  return hasRole(actor, least) ? (actor as AuthorizedActor<R>) : undefined;
}

/** authorize is the role check: it throws 403 unless the actor has at least `least`. */
export function authorize<R extends Role>(actor: Actor, least: R): AuthorizedActor<R> {
  const authorized = tryAuthorize(actor, least);
  if (!authorized) throw forbidden(`This needs the ${least} role; you are ${/^[aeiou]/.test(actor.role) ? "an" : "a"} ${actor.role}.`);
  return authorized;
}
