import { hasRole, type Actor } from "../../auth/actor";
import type { DbOrTx } from "../../db";
import { AppError } from "../../errors";
import { assertUserExists } from "../users/assert-user-exists";

/** Only editors and admins hand an app to someone else, and only to an existing user. */
export async function checkNewOwner(db: DbOrTx, actor: Actor, ownerId: string): Promise<void> {
  if (ownerId === actor.userId) return;
  if (!hasRole(actor, "editor")) {
    throw new AppError("forbidden", 403, "ownerId: only editors and admins may make someone else the owner of an app.", [
      { field: "ownerId", message: "only editors and admins may choose another owner" },
    ]);
  }
  await assertUserExists(db, ownerId);
}
