// Run at every start of every replica (scripts/prepare.ts). A fresh install never has a default
// password: the first admin comes from SLUICE_ADMIN_EMAIL + SLUICE_ADMIN_PASSWORD,
// or from a one-time setup link that this prints.
import { accountLinks, users } from "@sluice/db";
import { and, desc, eq, gt, isNull, sql } from "drizzle-orm";

import { SYSTEM_ACTOR } from "../../auth/system-actor";
import { checkPasswordPolicy, hashPassword } from "../../auth/password";
import { recordChange } from "../../outbox/record-change";
import type { Database } from "../../db";
import { parseInput } from "../../validation/parse";
import { emailSchema } from "../../validation/users";
import { sha256 } from "../../auth/secrets";
import { secretKey } from "../../config";
import { open, SecretBoxError } from "../../crypto/secret-box";
import { accountLinkUrl, createAccountLink, sealContext } from "./create-account-link";

export type FirstAdminOutcome =
  | { kind: "exists" }
  | { kind: "created-from-env"; email: string }
  | { kind: "setup-link"; url: string; expiresAt: Date };

export async function ensureFirstAdmin(options: { db: Database; env?: Record<string, string | undefined> }): Promise<FirstAdminOutcome> {
  const env = options.env ?? process.env;
  return options.db.transaction(async (tx) => {
    // Serialise concurrent starts (two portal instances) on one lock.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('sluice.first_admin'))`);
    const [admin] = await tx.select({ id: users.id }).from(users).where(eq(users.role, "admin")).limit(1);
    if (admin) return { kind: "exists" };

    const email = env.SLUICE_ADMIN_EMAIL?.trim();
    const password = env.SLUICE_ADMIN_PASSWORD;
    if (email && password) {
      parseInput(emailSchema, email);
      checkPasswordPolicy(password, "SLUICE_ADMIN_PASSWORD");
      const [user] = await tx
        .insert(users)
        .values({ email, role: "admin", passwordHash: await hashPassword(password) })
        .returning();
      await recordChange(tx, SYSTEM_ACTOR, { action: "user.create", entityType: "user", entityId: user!.id, after: user });
      return { kind: "created-from-env", email };
    }

    // Every replica runs this at start, and so does every restart: while the
    // last link is unused and unexpired, print that same link again (its token
    // is sealed under SLUICE_SECRET_KEY, which all replicas share) rather than
    // replacing it, which would break the link another replica just printed.
    const [current] = await tx
      .select()
      .from(accountLinks)
      .where(and(eq(accountLinks.purpose, "first_admin"), isNull(accountLinks.usedAt), gt(accountLinks.expiresAt, sql`now()`)))
      .orderBy(desc(accountLinks.createdAt))
      .limit(1);
    const token = current?.tokenCiphertext ? openSealedToken(current.tokenCiphertext, current.tokenHash) : undefined;
    if (current && token) return { kind: "setup-link", url: accountLinkUrl(token), expiresAt: current.expiresAt };

    // None usable (none yet, expired, or sealed under another SLUICE_SECRET_KEY):
    // a new link replaces any earlier unused one.
    await tx.delete(accountLinks).where(and(eq(accountLinks.purpose, "first_admin"), isNull(accountLinks.usedAt)));
    const link = await createAccountLink({ tx, purpose: "first_admin", userId: null, createdBy: null, sealed: true });
    return { kind: "setup-link", ...link };
  });
}

/** The sealed token, or undefined when it does not open under this SLUICE_SECRET_KEY (then a new link is made). */
function openSealedToken(ciphertext: string, tokenHash: string): string | undefined {
  try {
    const token = open(ciphertext, sealContext(tokenHash), secretKey());
    return sha256(token) === tokenHash ? token : undefined;
  } catch (err) {
    if (err instanceof SecretBoxError) return undefined;
    throw err;
  }
}
