import { accountLinks, users, type AccountLink } from "@sluice/db";
import { and, eq, gt, isNull } from "drizzle-orm";

import { sha256 } from "../../auth/secrets";
import type { DbOrTx } from "../../db";

export interface UsableLink {
  tokenHash: string;
  purpose: AccountLink["purpose"];
  user: { id: string; email: string } | null;
}

/** The link behind a token if it is unused and unexpired (and, for first_admin, no admin exists yet). */
export async function findAccountLink(options: { db: DbOrTx; token: string }): Promise<UsableLink | undefined> {
  const [row] = await options.db
    .select({ link: accountLinks, user: { id: users.id, email: users.email } })
    .from(accountLinks)
    .leftJoin(users, eq(users.id, accountLinks.userId))
    .where(and(eq(accountLinks.tokenHash, sha256(options.token)), isNull(accountLinks.usedAt), gt(accountLinks.expiresAt, new Date())))
    .limit(1);
  if (!row) return undefined;
  if (row.link.purpose === "first_admin") {
    const [admin] = await options.db.select({ id: users.id }).from(users).where(eq(users.role, "admin")).limit(1);
    if (admin) return undefined;
  }
  return { tokenHash: row.link.tokenHash, purpose: row.link.purpose, user: row.user };
}
