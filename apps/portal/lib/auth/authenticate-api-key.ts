// `Authorization: Bearer slk_…` → the key owner's Actor, or undefined. Fails
// closed: unknown, revoked, expired keys and disabled users all authenticate nobody.
import { apiKeys, users } from "@sluice/db";
import { and, eq, isNull } from "drizzle-orm";

import type { DbOrTx } from "../db";
import { actorFromUser, type Actor } from "./actor";
import { sha256 } from "./secrets";

export async function authenticateApiKey(options: { db: DbOrTx; key: string }): Promise<Actor | undefined> {
  if (!options.key.startsWith("slk_")) return undefined;
  const [row] = await options.db
    .select({ key: apiKeys, user: users })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(and(eq(apiKeys.secretHash, sha256(options.key)), isNull(apiKeys.revokedAt), isNull(users.disabledAt)))
    .limit(1);
  if (!row || (row.key.expiresAt && row.key.expiresAt.getTime() <= Date.now())) return undefined;
  const now = new Date();
  // last_used_at is informational; update it at most once a minute.
  if (!row.key.lastUsedAt || now.getTime() - row.key.lastUsedAt.getTime() > 60_000) {
    await options.db.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, row.key.id));
  }
  return actorFromUser(row.user, { kind: "api-key", keyId: row.key.id, prefix: row.key.prefix });
}
