// Run at every start (scripts/first-admin.ts). A fresh install never has a default
// password: the first admin comes from SLUICE_ADMIN_EMAIL + SLUICE_ADMIN_PASSWORD,
// or from a one-time setup link that this prints.
import { accountLinks, users } from "@sluice/db";
import { and, eq, isNull, sql } from "drizzle-orm";

import { SYSTEM_ACTOR } from "../../auth/system-actor";
import { checkPasswordPolicy, hashPassword } from "../../auth/password";
import { recordChange } from "../../outbox/record-change";
import type { Database } from "../../db";
import { parseInput } from "../../validation/parse";
import { emailSchema } from "../../validation/users";
import { createAccountLink } from "./create-account-link";

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

    // A new link replaces any earlier unused one, so only the last printed link works.
    await tx.delete(accountLinks).where(and(eq(accountLinks.purpose, "first_admin"), isNull(accountLinks.usedAt)));
    const link = await createAccountLink({ tx, purpose: "first_admin", userId: null, createdBy: null });
    return { kind: "setup-link", ...link };
  });
}
