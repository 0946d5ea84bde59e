import { users } from "@sluice/db";
import { asc } from "drizzle-orm";

import type { AuthorizedActor } from "../../auth/actor";
import type { DbOrTx } from "../../db";

export async function listUsers(options: { db: DbOrTx; actor: AuthorizedActor<"admin"> }) {
  return options.db
    .select({
      id: users.id,
      email: users.email,
      displayName: users.displayName,
      role: users.role,
      createdAt: users.createdAt,
      lastLoginAt: users.lastLoginAt,
      disabledAt: users.disabledAt,
      pending: users.passwordHash,
    })
    .from(users)
    .orderBy(asc(users.email))
    .then((rows) => rows.map(({ pending, ...u }) => ({ ...u, invitationPending: pending === null })));
}
