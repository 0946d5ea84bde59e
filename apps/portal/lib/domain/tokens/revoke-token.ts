// Revokes one token by jti: every gateway learns it from `revoked/<jti>` and
// closes connections using it. Revoking twice changes nothing.
import { issuedTokens } from "@sluice/db";
import { and, eq, sql } from "drizzle-orm";

import type { Actor } from "../../auth/actor";
import { revokedTokenRecord } from "../../catalog/records";
import { recordChange } from "../../outbox/record-change";
import type { Database } from "../../db";
import { notFound } from "../../errors";
import { loadApp } from "../apps/load-app";

export async function revokeToken(options: { db: Database; actor: Actor; appId: string; jti: string }) {
  return options.db.transaction(async (tx) => {
    const app = await loadApp({ db: tx, actor: options.actor, appId: options.appId, lock: "share" });
    const [before] = await tx
      .select()
      .from(issuedTokens)
      .where(and(eq(issuedTokens.jti, options.jti), eq(issuedTokens.appId, app.id)))
      .for("update");
    if (!before) throw notFound("The token");
    if (before.revokedAt) return before;
    const [after] = await tx
      .update(issuedTokens)
      // greatest(): a clock a little behind the minting instance must not break revoked_at >= issued_at.
      .set({
        revokedAt: sql`greatest(${new Date().toISOString()}::timestamptz, ${issuedTokens.issuedAt})`,
        revokedBy: options.actor.userId || null,
      })
      .where(eq(issuedTokens.jti, before.jti))
      .returning();
    await recordChange(tx, options.actor, {
      action: "token.revoke",
      entityType: "token",
      entityId: before.jti,
      before,
      after,
      catalog: [revokedTokenRecord(after!)],
    });
    return after!;
  });
}
