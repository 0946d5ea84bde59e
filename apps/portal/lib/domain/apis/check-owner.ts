import { users } from "@sluice/db";
import { eq } from "drizzle-orm";

import type { DbOrTx } from "../../db";
import { invalid } from "../../errors";

/** An API's owner must be an existing portal user (null: nobody). */
export async function checkOwner(db: DbOrTx, ownerId: string | null): Promise<void> {
  if (ownerId === null) return;
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.id, ownerId)).limit(1);
  if (!user) throw invalid("ownerId", "is not a user of this portal");
}
