// The signed-in user's own account, for Settings → Account: who they are and
// when they last signed in before this session (previous_login_at, so a
// sign-in they do not recognise stands out).
import { users } from "@sluice/db";
import { eq } from "drizzle-orm";

import type { AuthorizedActor } from "../../auth/actor";
import type { DbOrTx } from "../../db";
import { notFound } from "../../errors";

export async function getOwnAccount(options: { db: DbOrTx; actor: AuthorizedActor }) {
  const [me] = await options.db
    .select({
      email: users.email,
      displayName: users.displayName,
      role: users.role,
      createdAt: users.createdAt,
      lastLoginAt: users.lastLoginAt,
      previousLoginAt: users.previousLoginAt,
      checklistDismissedAt: users.checklistDismissedAt,
    })
    .from(users)
    .where(eq(users.id, options.actor.userId));
  if (!me) throw notFound("Your account");
  return me;
}
