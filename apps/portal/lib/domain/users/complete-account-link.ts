// Using a one-time link: the first admin creates their account; an invited user
// or one resetting a password sets it. The link is consumed in the same
// transaction, under a row lock, so it works exactly once.
import { accountLinks, users, type User } from "@sluice/db";
import { eq, sql } from "drizzle-orm";

import { actorFromUser } from "../../auth/actor";
import { hashPassword } from "../../auth/password";
import { sha256 } from "../../auth/secrets";
import { deleteUserSessions } from "../../auth/sessions";
import { recordChange } from "../../outbox/record-change";
import type { Database } from "../../db";
import { AppError, translateConstraint } from "../../errors";
import { parseInput } from "../../validation/parse";
import { firstAdminInput, setPasswordInput } from "../../validation/users";
import { findAccountLink } from "./find-account-link";

const linkGone = () => new AppError("not_found", 404, "This link is invalid, expired or already used. Ask an admin for a new one.");

export async function completeAccountLink(options: { db: Database; token: string; input: unknown }): Promise<User> {
  return options.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('sluice.first_admin'))`);
    const [locked] = await tx
      .select()
      .from(accountLinks)
      .where(eq(accountLinks.tokenHash, sha256(options.token)))
      .for("update");
    const link = locked && (await findAccountLink({ db: tx, token: options.token }));
    if (!link) throw linkGone();
    // A used link's sealed token (first admin) has no further use: drop it.
    await tx.update(accountLinks).set({ usedAt: new Date(), tokenCiphertext: null }).where(eq(accountLinks.tokenHash, link.tokenHash));

    if (link.purpose === "first_admin") {
      const input = parseInput(firstAdminInput, options.input);
      const [user] = await tx
        .insert(users)
        .values({ email: input.email, displayName: input.displayName, role: "admin", passwordHash: await hashPassword(input.password) })
        .returning()
        .catch((err) =>
          translateConstraint(err, { users_email_lower_key: { field: "email", message: "an account with this e-mail already exists" } }),
        );
      await recordChange(tx, actorFromUser(user!, { kind: "session" }), {
        action: "user.create",
        entityType: "user",
        entityId: user!.id,
        after: user,
      });
      return user!;
    }

    const input = parseInput(setPasswordInput, options.input);
    const [user] = await tx
      .update(users)
      .set({ passwordHash: await hashPassword(input.password), updatedAt: new Date() })
      .where(eq(users.id, link.user!.id))
      .returning();
    if (!user) throw linkGone();
    await deleteUserSessions({ db: tx, userId: user.id });
    await recordChange(tx, actorFromUser(user, { kind: "session" }), {
      action: "user.set_password",
      entityType: "user",
      entityId: user.id,
    });
    return user;
  });
}
