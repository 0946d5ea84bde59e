// Sign-in rate limiting, kept in PostgreSQL so it holds across portal replicas
// (no per-process counter: every replica counts every replica's attempts).
// Two sliding windows: failures for one e-mail (guessing one account's
// password) and failures from one address (trying many accounts).
//
// An attempt is written down before the password is checked, as a failure
// until proven otherwise, and the windows are counted after that write. So
// concurrent attempts (on one replica or several) see each other: of N
// attempts racing past a window with one free place, at most one proceeds —
// a check-then-record scheme would let all N through. An attempt refused by
// the limit removes its row again, so waiting out the window works however
// often a locked-out user tried meanwhile.
import { loginAttempts } from "@sluice/db";
import { and, count, eq, gt, lt } from "drizzle-orm";

import type { DbOrTx } from "../db";
import { AppError } from "../errors";

export const LOGIN_WINDOW_SECONDS = 15 * 60;
export const MAX_FAILURES_PER_EMAIL = 5;
export const MAX_FAILURES_PER_IP = 20;

/**
 * Records a sign-in attempt (as failed until finishLoginAttempt says
 * otherwise) and returns its id, or throws 429 when the e-mail or the address
 * already used up its window.
 */
export async function beginLoginAttempt(options: { db: DbOrTx; email: string; ip: string }): Promise<number> {
  const email = options.email.toLowerCase();
  const [attempt] = await options.db
    .insert(loginAttempts)
    .values({ email, ip: options.ip, succeeded: false })
    .returning({ id: loginAttempts.id, at: loginAttempts.attemptedAt });
  const since = new Date(attempt!.at.getTime() - LOGIN_WINDOW_SECONDS * 1000);
  const failures = (column: typeof loginAttempts.email | typeof loginAttempts.ip, value: string) =>
    options.db
      .select({ n: count() })
      .from(loginAttempts)
      .where(and(eq(column, value), eq(loginAttempts.succeeded, false), gt(loginAttempts.attemptedAt, since)));
  const [[byEmail], [byIp]] = await Promise.all([failures(loginAttempts.email, email), failures(loginAttempts.ip, options.ip)]);
  // The counts include this attempt.
  if ((byEmail?.n ?? 0) > MAX_FAILURES_PER_EMAIL || (byIp?.n ?? 0) > MAX_FAILURES_PER_IP) {
    await options.db.delete(loginAttempts).where(eq(loginAttempts.id, attempt!.id));
    throw new AppError(
      "rate_limited",
      429,
      `Too many failed sign-ins. Try again in ${LOGIN_WINDOW_SECONDS / 60} minutes.`,
      [],
      LOGIN_WINDOW_SECONDS,
    );
  }
  return attempt!.id;
}

/** Settles the attempt; a success clears the account's failures. Old rows are pruned as we go. */
export async function finishLoginAttempt(options: { db: DbOrTx; attemptId: number; email: string; succeeded: boolean }): Promise<void> {
  if (options.succeeded) {
    await options.db.update(loginAttempts).set({ succeeded: true }).where(eq(loginAttempts.id, options.attemptId));
    await options.db
      .delete(loginAttempts)
      .where(and(eq(loginAttempts.email, options.email.toLowerCase()), eq(loginAttempts.succeeded, false)));
  }
  await options.db.delete(loginAttempts).where(lt(loginAttempts.attemptedAt, new Date(Date.now() - 24 * 3600 * 1000)));
}
