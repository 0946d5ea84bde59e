import { apiKeys } from "@sluice/db";
import { desc, eq } from "drizzle-orm";

import type { Actor } from "../../auth/actor";
import type { DbOrTx } from "../../db";

/** The caller's own keys, newest first (never the secret). */
export async function listApiKeys(options: { db: DbOrTx; actor: Actor }) {
  return options.db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      prefix: apiKeys.prefix,
      createdAt: apiKeys.createdAt,
      lastUsedAt: apiKeys.lastUsedAt,
      expiresAt: apiKeys.expiresAt,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .where(eq(apiKeys.userId, options.actor.userId))
    .orderBy(desc(apiKeys.createdAt));
}
