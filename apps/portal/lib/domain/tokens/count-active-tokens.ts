// How many of an app's tokens still work (neither revoked nor expired): the app
// page offers "Revoke all tokens" only when there is something to revoke.
import { issuedTokens } from "@sluice/db";
import { and, count, eq, gt, isNull } from "drizzle-orm";

import type { Actor } from "../../auth/actor";
import type { DbOrTx } from "../../db";
import { loadApp } from "../apps/load-app";

export async function countActiveTokens(options: { db: DbOrTx; actor: Actor; appId: string }): Promise<number> {
  await loadApp(options);
  const [row] = await options.db
    .select({ n: count() })
    .from(issuedTokens)
    .where(and(eq(issuedTokens.appId, options.appId), isNull(issuedTokens.revokedAt), gt(issuedTokens.expiresAt, new Date())));
  return row?.n ?? 0;
}
