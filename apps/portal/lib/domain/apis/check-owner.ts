import type { DbOrTx } from "../../db";
import { assertUserExists } from "../users/assert-user-exists";

/** An API's owner must be an existing portal user (null: nobody). */
export async function checkOwner(db: DbOrTx, ownerId: string | null): Promise<void> {
  if (ownerId !== null) await assertUserExists(db, ownerId);
}
