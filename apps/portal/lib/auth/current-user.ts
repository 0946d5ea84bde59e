// The signed-in user of the current request (pages, server actions). Route
// handlers under /api/v1 authenticate in lib/api/router.ts instead.
import { cookies, headers } from "next/headers";
import { forbidden, redirect } from "next/navigation";
import { cache } from "react";

import { portalPublicUrl, trustProxy } from "../config";
import { getDb } from "../db";
import { actorFromUser, authorize, tryAuthorize, type AuthorizedActor, type Role } from "./actor";
import { lookupSession, SESSION_COOKIE, type SessionInfo } from "./sessions";

/** Looked up once per request, however many components ask. */
export const currentSession = cache(async (): Promise<SessionInfo | undefined> => {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  if (!token) return undefined;
  return lookupSession({ db: getDb(), token });
});

/** The signed-in actor, if any; every signed-in user is at least a viewer. */
export async function currentActor(): Promise<AuthorizedActor | undefined> {
  const session = await currentSession();
  return session && authorize(actorFromUser(session.user, { kind: "session" }), "viewer");
}

/**
 * For pages: the signed-in actor with at least `least`; otherwise a redirect to
 * sign in (then back to the page asked for, as proxy.ts reports it) or the 403 page.
 */
export async function pageActor<R extends Role = "viewer">(least: R = "viewer" as R, returnTo?: string): Promise<AuthorizedActor<R>> {
  const actor = await currentActor();
  if (!actor) {
    const back = (await headers()).get("x-sluice-path") ?? returnTo;
    redirect(`/login${back && back !== "/" ? `?next=${encodeURIComponent(back)}` : ""}`);
  }
  return tryAuthorize(actor, least) ?? forbidden();
}

export async function setSessionCookie(token: string, expiresAt: Date): Promise<void> {
  (await cookies()).set(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: "lax",
    secure: portalPublicUrl().startsWith("https:"),
    path: "/",
    expires: expiresAt,
  });
}

export async function clearSessionCookie(): Promise<void> {
  (await cookies()).delete(SESSION_COOKIE);
}

/** The client address for rate limiting: the socket peer as Next reports it, or the proxy's header when trusted. */
export async function clientIp(): Promise<string> {
  const h = await headers();
  const forwarded = h.get("x-forwarded-for");
  if (forwarded && trustProxy()) return forwarded.split(",")[0]!.trim();
  // Next's own server sets x-forwarded-for from the socket when no proxy did; when
  // a proxy did and is not trusted, the last hop is the one we saw ourselves.
  return forwarded?.split(",").pop()?.trim() || "unknown";
}
