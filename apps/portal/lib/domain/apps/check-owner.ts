import { users } from "@sluice/db";
import { eq } from "drizzle-orm";

import { requireRole, type Actor } from "../../auth/actor";
import type { DbOrTx } from "../../db";
import { AppError, invalid } from "../../errors";

/** Only editors and admins hand an app to someone else, and only to an existing user. */
export async function checkNewOwner(db: DbOrTx, actor: Actor, ownerId: string): Promise<void> {
  if (ownerId === actor.userId) return;
  try {
    requireRole(actor, "editor");
  } catch (err) {
    throw new AppError("forbidden", 403, "ownerId: only editors and admins may make someone else the owner of an app.", [{ field: "ownerId", message: "only editors and admins may choose another owner" }]);
  }
  const [owner] = await db.select({ id: users.id }).from(users).where(eq(users.id, ownerId));
  if (!owner) throw invalid("ownerId", "there is no user with this id");
}
