// Who is acting. Every domain function takes an Actor, checks it, and writes it
// into the audit log; there is no code path that changes data anonymously.
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

/** Throws 403 unless the actor has at least `least`. */
export function requireRole(actor: Pick<Actor, "role">, least: Role): void {
  if (!hasRole(actor, least)) throw forbidden(`This needs the ${least} role; you are ${actor.role === "admin" ? "an" : "a"} ${actor.role}.`);
}
