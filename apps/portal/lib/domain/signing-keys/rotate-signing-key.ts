// Admins rotate: a new key becomes active, the old one is retired (it keeps
// verifying the tokens it signed until they expire), and retired keys whose
// tokens have all expired are tombstoned. New tokens are signed with the new key.
import { signingKeys } from "@sluice/db";
import { eq, sql } from "drizzle-orm";

import type { AuthorizedActor } from "../../auth/actor";
import { signingKeyRecord } from "../../catalog/records";
import { recordChange } from "../../outbox/record-change";
import type { Database } from "../../db";
import { expireRetiredSigningKeys } from "./expire-retired-signing-keys";
import { generateSigningKey, SIGNING_KEY_LOCK } from "./generate-signing-key";

export async function rotateSigningKey(options: { db: Database; actor: AuthorizedActor<"admin">; encryptionKey?: Buffer }) {
  return options.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${SIGNING_KEY_LOCK}))`);
    const [before] = await tx.select().from(signingKeys).where(eq(signingKeys.status, "active")).for("update");
    let retired = null;
    if (before) {
      [retired] = await tx
        .update(signingKeys)
        .set({ status: "retired", retiredAt: new Date() })
        .where(eq(signingKeys.kid, before.kid))
        .returning();
      await recordChange(tx, options.actor, {
        action: "signing_key.retire",
        entityType: "signing_key",
        entityId: before.kid,
        before,
        after: retired,
        catalog: [signingKeyRecord(retired!)],
      });
    }
    const active = await generateSigningKey({ tx, actor: options.actor, encryptionKey: options.encryptionKey });
    const expired = await expireRetiredSigningKeys({ tx, actor: options.actor });
    return { active, retired: retired ?? null, expired };
  });
}
