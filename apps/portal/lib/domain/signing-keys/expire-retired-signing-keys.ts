// Retired keys stay in the JWKS (and the catalog) while a token they signed can
// still be valid. Once the last one has expired, the key is tombstoned in the
// catalog so gateways forget it. The audit entry `signing_key.expire` marks the
// key as done, so each key is tombstoned once. Called opportunistically (rotate,
// start); a late call is harmless because the JWKS already leaves such keys out.
import { auditLog, issuedTokens, signingKeys } from "@sluice/db";
import { and, eq, gt, notExists, sql } from "drizzle-orm";

import { SYSTEM_ACTOR } from "../../auth/system-actor";
import type { Actor } from "../../auth/actor";
import { signingKeyTombstone } from "../../catalog/records";
import { recordChange } from "../../outbox/record-change";
import type { DbOrTx, Tx } from "../../db";
import { SIGNING_KEY_LOCK } from "./generate-signing-key";

/** Retired keys that no longer sign any unexpired token and were not yet tombstoned. */
export async function findExpiredRetiredKeys(db: DbOrTx, now = new Date()) {
  return db
    .select()
    .from(signingKeys)
    .where(
      and(
        eq(signingKeys.status, "retired"),
        notExists(db.select({ one: sql`1` }).from(issuedTokens).where(and(eq(issuedTokens.kid, signingKeys.kid), gt(issuedTokens.expiresAt, now)))),
        notExists(
          db
            .select({ one: sql`1` })
            .from(auditLog)
            .where(and(eq(auditLog.entityType, "signing_key"), eq(auditLog.entityId, signingKeys.kid), eq(auditLog.action, "signing_key.expire"))),
        ),
      ),
    );
}

/** Tombstones every expired retired key; runs in the caller's transaction. */
export async function expireRetiredSigningKeys(options: { tx: Tx; actor?: Actor; now?: Date }): Promise<string[]> {
  await options.tx.execute(sql`select pg_advisory_xact_lock(hashtext(${SIGNING_KEY_LOCK}))`);
  const expired = await findExpiredRetiredKeys(options.tx, options.now);
  for (const key of expired) {
    await recordChange(options.tx, options.actor ?? SYSTEM_ACTOR, {
      action: "signing_key.expire",
      entityType: "signing_key",
      entityId: key.kid,
      before: { kid: key.kid, status: key.status, retiredAt: key.retiredAt },
      catalog: [signingKeyTombstone(key.kid)],
    });
  }
  return expired.map((k) => k.kid);
}
