// Retired keys stay in the JWKS (and the catalog) while a token they signed can
// still be valid (signingKeyInCatalog in @sluice/db, the rule the bridge's
// republish uses too). Once the last one has expired, the key is tombstoned in
// the catalog so gateways forget it, and its expired_at marks it as done, so each
// key is tombstoned once. Called opportunistically (rotate, start); a late call is
// harmless because the JWKS and the republish already leave such keys out.
import { signingKeyInCatalog, signingKeys } from "@sluice/db";
import { and, eq, isNull, not, sql } from "drizzle-orm";

import { SYSTEM_ACTOR } from "../../auth/system-actor";
import type { Actor } from "../../auth/actor";
import { signingKeyTombstone } from "../../catalog/records";
import { recordChange } from "../../outbox/record-change";
import type { DbOrTx, Tx } from "../../db";
import { SIGNING_KEY_LOCK } from "./generate-signing-key";

/** Retired keys that have left the catalog (no unexpired token) and were not yet tombstoned. */
export async function findExpiredRetiredKeys(db: DbOrTx, now = new Date()) {
  return db
    .select()
    .from(signingKeys)
    .where(and(eq(signingKeys.status, "retired"), isNull(signingKeys.expiredAt), not(signingKeyInCatalog(now))));
}

/** Tombstones every expired retired key; runs in the caller's transaction. */
export async function expireRetiredSigningKeys(options: { tx: Tx; actor?: Actor; now?: Date }): Promise<string[]> {
  await options.tx.execute(sql`select pg_advisory_xact_lock(hashtext(${SIGNING_KEY_LOCK}))`);
  const now = options.now ?? new Date();
  const expired = await findExpiredRetiredKeys(options.tx, now);
  for (const key of expired) {
    await options.tx.update(signingKeys).set({ expiredAt: now }).where(eq(signingKeys.kid, key.kid));
    await recordChange(options.tx, options.actor ?? SYSTEM_ACTOR, {
      action: "signing_key.expire",
      entityType: "signing_key",
      entityId: key.kid,
      before: { kid: key.kid, status: key.status, retiredAt: key.retiredAt },
      after: { kid: key.kid, status: key.status, retiredAt: key.retiredAt, expiredAt: now },
      catalog: [signingKeyTombstone(key.kid)],
    });
  }
  return expired.map((k) => k.kid);
}
