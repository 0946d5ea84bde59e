// Password sign-in: rate limited per e-mail and per address, the same answer and
// about the same time for an unknown e-mail as for a wrong password.
import { users } from "@sluice/db";
import { eq, sql } from "drizzle-orm";

import { actorFromUser } from "../../auth/actor";
import { decoyHash, verifyPassword } from "../../auth/password";
import { beginLoginAttempt, finishLoginAttempt } from "../../auth/rate-limit";
import { createSession } from "../../auth/sessions";
import { recordChange } from "../../outbox/record-change";
import type { Database } from "../../db";
import { AppError } from "../../errors";
import { parseInput } from "../../validation/parse";
import { signInInput } from "../../validation/users";

export async function signIn(options: { db: Database; input: unknown; ip: string; userAgent?: string }) {
  const { email, password } = parseInput(signInInput, options.input);
  const attemptId = await beginLoginAttempt({ db: options.db, email, ip: options.ip });

  const [user] = await options.db
    .select()
    .from(users)
    .where(eq(sql`lower(${users.email})`, email.toLowerCase()))
    .limit(1);
  const ok = await verifyPassword(password, user?.passwordHash ?? (await decoyHash()));
  const usable = ok && user?.passwordHash && !user.disabledAt;
  await finishLoginAttempt({ db: options.db, attemptId, email, succeeded: Boolean(usable) });
  if (!usable)
    throw new AppError("unauthenticated", 401, "The e-mail or password is wrong.", [
      { field: "password", message: "the e-mail or password is wrong" },
    ]);

  return options.db.transaction(async (tx) => {
    const session = await createSession({ db: tx, userId: user.id, userAgent: options.userAgent });
    // The sign-in before this one is what the user is shown as their last (this one is the new session's);
    // SET reads the row as it was, so previous_login_at takes the old last_login_at.
    await tx
      .update(users)
      .set({ previousLoginAt: sql`${users.lastLoginAt}`, lastLoginAt: new Date() })
      .where(eq(users.id, user.id));
    await recordChange(tx, actorFromUser(user, { kind: "session" }), { action: "user.sign_in", entityType: "user", entityId: user.id });
    return { user, ...session };
  });
}
