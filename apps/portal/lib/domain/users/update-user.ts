// Admins change roles and disable accounts. The last enabled admin cannot be
// demoted or disabled, so an install can never lock itself out.
import { users } from "@sluice/db";
import { and, count, eq, isNull, ne, sql } from "drizzle-orm";

import type { AuthorizedActor } from "../../auth/actor";
import { deleteUserSessions } from "../../auth/sessions";
import { recordChange } from "../../outbox/record-change";
import type { Database } from "../../db";
import { conflict, notFound } from "../../errors";
import type { UpdateUserInput } from "../../validation/users";

export async function updateUser(options: { db: Database; actor: AuthorizedActor<"admin">; userId: string; input: UpdateUserInput }) {
  const { input } = options;
  return options.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('sluice.first_admin'))`);
    const [before] = await tx.select().from(users).where(eq(users.id, options.userId)).for("update");
    if (!before) throw notFound("The user");
    const losesAdmin = before.role === "admin" && !before.disabledAt && ((input.role && input.role !== "admin") || input.disabled === true);
    if (losesAdmin) {
      const [others] = await tx
        .select({ n: count() })
        .from(users)
        .where(and(eq(users.role, "admin"), isNull(users.disabledAt), ne(users.id, before.id)));
      if (!others?.n) throw conflict(input.role ? "role" : "disabled", "this is the last enabled admin; make someone else admin first");
    }
    const [after] = await tx
      .update(users)
      .set({
        role: input.role ?? before.role,
        disabledAt: input.disabled === undefined ? before.disabledAt : input.disabled ? (before.disabledAt ?? new Date()) : null,
        updatedAt: new Date(),
      })
      .where(eq(users.id, before.id))
      .returning();
    if (input.disabled) await deleteUserSessions({ db: tx, userId: before.id });
    await recordChange(tx, options.actor, { action: "user.update", entityType: "user", entityId: before.id, before, after });
    return after!;
  });
}
