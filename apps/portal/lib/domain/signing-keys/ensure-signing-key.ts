// Run at every start (scripts/prepare.ts) and before the first mint: a fresh
// install gets an ES256 signing key without anyone asking for one.
import { signingKeys } from "@sluice/db";
import { eq, sql } from "drizzle-orm";

import { SYSTEM_ACTOR } from "../../auth/system-actor";
import type { Database } from "../../db";
import { generateSigningKey, SIGNING_KEY_LOCK } from "./generate-signing-key";

export type EnsureSigningKeyOutcome = { kind: "exists" | "created"; kid: string };

export async function ensureSigningKey(options: { db: Database; encryptionKey?: Buffer }): Promise<EnsureSigningKeyOutcome> {
  const [active] = await options.db.select({ kid: signingKeys.kid }).from(signingKeys).where(eq(signingKeys.status, "active"));
  if (active) return { kind: "exists", kid: active.kid };
  return options.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${SIGNING_KEY_LOCK}))`);
    const [again] = await tx.select({ kid: signingKeys.kid }).from(signingKeys).where(eq(signingKeys.status, "active"));
    if (again) return { kind: "exists", kid: again.kid };
    const row = await generateSigningKey({ tx, actor: SYSTEM_ACTOR, encryptionKey: options.encryptionKey });
    return { kind: "created", kid: row.kid };
  });
}
