// Browser sessions: a random token in an HTTP-only cookie, its SHA-256 in the
// database. A session slides forward while used (idle timeout) but never outlives
// its absolute lifetime.
import { sessions, users, type User } from "@sluice/db";
import { and, eq, gt, isNull, lt } from "drizzle-orm";

import type { DbOrTx } from "../db";
import { randomToken, sha256 } from "./secrets";

export const SESSION_COOKIE = "sluice_session";
export const SESSION_IDLE_SECONDS = 24 * 3600;
export const SESSION_ABSOLUTE_SECONDS = 7 * 24 * 3600;

export interface SessionInfo {
  user: User;
  csrfToken: string;
  expiresAt: Date;
}

export async function createSession(options: { db: DbOrTx; userId: string; userAgent?: string }) {
  const token = randomToken();
  const now = Date.now();
  const expiresAt = new Date(now + SESSION_IDLE_SECONDS * 1000);
  await options.db.insert(sessions).values({
    tokenHash: sha256(token),
    userId: options.userId,
    csrfToken: randomToken(24),
    expiresAt,
    userAgent: (options.userAgent ?? "").slice(0, 300),
  });
  // Expired sessions are dropped opportunistically rather than by a cron job.
  await options.db.delete(sessions).where(lt(sessions.expiresAt, new Date(now)));
  return { token, expiresAt };
}

/** The session's user (enabled, with a password) or undefined. Extends the idle deadline when used. */
export async function lookupSession(options: { db: DbOrTx; token: string }): Promise<SessionInfo | undefined> {
  const now = new Date();
  const [row] = await options.db
    .select({ session: sessions, user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, sha256(options.token)), gt(sessions.expiresAt, now), isNull(users.disabledAt)))
    .limit(1);
  if (!row) return undefined;
  const hardStop = row.session.createdAt.getTime() + SESSION_ABSOLUTE_SECONDS * 1000;
  if (now.getTime() >= hardStop) return undefined;
  let expiresAt = row.session.expiresAt;
  // Write at most about once a minute, not on every request.
  if (expiresAt.getTime() - now.getTime() < (SESSION_IDLE_SECONDS - 60) * 1000) {
    expiresAt = new Date(Math.min(now.getTime() + SESSION_IDLE_SECONDS * 1000, hardStop));
    await options.db.update(sessions).set({ expiresAt, lastSeenAt: now }).where(eq(sessions.tokenHash, row.session.tokenHash));
  }
  return { user: row.user, csrfToken: row.session.csrfToken, expiresAt };
}

export async function deleteSession(options: { db: DbOrTx; token: string }): Promise<void> {
  await options.db.delete(sessions).where(eq(sessions.tokenHash, sha256(options.token)));
}

/** Signs a user out everywhere (password change, account disabled). */
export async function deleteUserSessions(options: { db: DbOrTx; userId: string }): Promise<void> {
  await options.db.delete(sessions).where(eq(sessions.userId, options.userId));
}
