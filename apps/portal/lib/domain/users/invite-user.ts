// Admins add people by e-mail and role; the invitee sets a password through a
// one-time link the admin passes on (there is no mail server to rely on).
import { users } from "@sluice/db";

import type { AuthorizedActor } from "../../auth/actor";
import { recordChange } from "../../outbox/record-change";
import type { Database } from "../../db";
import { translateConstraint } from "../../errors";
import type { InviteUserInput } from "../../validation/users";
import { createAccountLink } from "./create-account-link";

export async function inviteUser(options: { db: Database; actor: AuthorizedActor<"admin">; input: InviteUserInput }) {
  const { input } = options;
  return options.db.transaction(async (tx) => {
    const [user] = await tx
      .insert(users)
      .values({ email: input.email, displayName: input.displayName, role: input.role })
      .returning()
      .catch((err) =>
        translateConstraint(err, { users_email_lower_key: { field: "email", message: "an account with this e-mail already exists" } }),
      );
    const link = await createAccountLink({ tx, purpose: "invite", userId: user!.id, createdBy: options.actor.userId });
    await recordChange(tx, options.actor, { action: "user.invite", entityType: "user", entityId: user!.id, after: user });
    return { user: user!, inviteUrl: link.url, inviteExpiresAt: link.expiresAt };
  });
}
