// Sign-in rate limiting, kept in PostgreSQL so it holds across portal instances.
// Two windows: failures for one e-mail (guessing one account's password) and
// failures from one address (trying many accounts).
import { loginAttempts } from "@sluice/db";
import { and, count, eq, gt, lt } from "drizzle-orm";

import type { DbOrTx } from "../db";
import { AppError } from "../errors";

export const LOGIN_WINDOW_SECONDS = 15 * 60;
export const MAX_FAILURES_PER_EMAIL = 5;
export const MAX_FAILURES_PER_IP = 20;

export async function assertLoginAllowed(options: { db: DbOrTx; email: string; ip: string }): Promise<void> {
  const since = new Date(Date.now() - LOGIN_WINDOW_SECONDS * 1000);
  const failures = (column: typeof loginAttempts.email | typeof loginAttempts.ip, value: string) =>
    options.db
      .select({ n: count() })
      .from(loginAttempts)
      .where(and(eq(column, value), eq(loginAttempts.succeeded, false), gt(loginAttempts.attemptedAt, since)));
  const [[byEmail], [byIp]] = await Promise.all([
    failures(loginAttempts.email, options.email.toLowerCase()),
    failures(loginAttempts.ip, options.ip),
  ]);
  if ((byEmail?.n ?? 0) >= MAX_FAILURES_PER_EMAIL || (byIp?.n ?? 0) >= MAX_FAILURES_PER_IP) {
    throw new AppError(
      "rate_limited",
      429,
      `Too many failed sign-ins. Try again in ${LOGIN_WINDOW_SECONDS / 60} minutes.`,
      [],
      LOGIN_WINDOW_SECONDS,
    );
  }
}

export async function recordLoginAttempt(options: { db: DbOrTx; email: string; ip: string; succeeded: boolean }): Promise<void> {
  await options.db.insert(loginAttempts).values({ email: options.email.toLowerCase(), ip: options.ip, succeeded: options.succeeded });
  // A successful sign-in clears that account's failures; old rows are pruned as we go.
  if (options.succeeded) {
    await options.db
      .delete(loginAttempts)
      .where(and(eq(loginAttempts.email, options.email.toLowerCase()), eq(loginAttempts.succeeded, false)));
  }
  await options.db.delete(loginAttempts).where(lt(loginAttempts.attemptedAt, new Date(Date.now() - 24 * 3600 * 1000)));
}
