// "Revoke every token of this app": tokens_not_before moves to the next whole
// second (the gateway compares seconds: iat < tokens_not_before is revoked), the
// app record carries it to every gateway, and each live token is marked revoked
// for the list. Tokens minted afterwards get iat ≥ tokens_not_before (mint-token).
import { apps, issuedTokens } from "@sluice/db";
import { and, eq, gt, isNull, sql } from "drizzle-orm";

import type { Actor } from "../../auth/actor";
import { recordChange } from "../../outbox/record-change";
import type { Database } from "../../db";
import { revokeAllNotBefore } from "../../tokens/claims";
import { currentAppRecords } from "../apps/current-app-records";
import { loadApp } from "../apps/load-app";

export async function revokeAllTokens(options: { db: Database; actor: Actor; appId: string }) {
  return options.db.transaction(async (tx) => {
    const before = await loadApp({ db: tx, actor: options.actor, appId: options.appId, lock: "update" });
    const now = new Date();
    const tokensNotBefore = revokeAllNotBefore(now.getTime(), before.tokensNotBefore);
    const [after] = await tx.update(apps).set({ tokensNotBefore, updatedAt: now }).where(eq(apps.id, before.id)).returning();
    const revoked = await tx
      .update(issuedTokens)
      .set({
        revokedAt: sql`greatest(${now.toISOString()}::timestamptz, ${issuedTokens.issuedAt})`,
        revokedBy: options.actor.userId || null,
      })
      .where(and(eq(issuedTokens.appId, before.id), isNull(issuedTokens.revokedAt), gt(issuedTokens.expiresAt, now)))
      .returning({ jti: issuedTokens.jti });
    await recordChange(tx, options.actor, {
      action: "app.revoke_tokens",
      entityType: "app",
      entityId: before.id,
      before,
      after: { ...after, revokedJtis: revoked.map((r) => r.jti) },
      // With the app's limits: a record without them would lift its plans on every gateway.
      catalog: await currentAppRecords(tx, [before.id]),
    });
    return { tokensNotBefore, revoked: revoked.length };
  });
}
