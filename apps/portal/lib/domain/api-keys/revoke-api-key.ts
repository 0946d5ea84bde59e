import { apiKeys } from "@sluice/db";
import { and, eq, isNull } from "drizzle-orm";

import { hasRole, type Actor } from "../../auth/actor";
import { recordChange } from "../../outbox/record-change";
import type { Database } from "../../db";
import { notFound } from "../../errors";

/** Owners revoke their keys; admins may revoke anyone's. Revoking twice is harmless. */
export async function revokeApiKey(options: { db: Database; actor: Actor; keyId: string }) {
  return options.db.transaction(async (tx) => {
    const [before] = await tx.select().from(apiKeys).where(eq(apiKeys.id, options.keyId)).for("update");
    if (!before || (before.userId !== options.actor.userId && !hasRole(options.actor, "admin"))) throw notFound("The API key");
    if (before.revokedAt) return before;
    const [after] = await tx
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiKeys.id, before.id), isNull(apiKeys.revokedAt)))
      .returning();
    await recordChange(tx, options.actor, { action: "api_key.revoke", entityType: "api_key", entityId: before.id, before, after });
    return after!;
  });
}
