import { users } from "@sluice/db";
import { eq } from "drizzle-orm";

import type { DbOrTx } from "../../db";
import { invalid } from "../../errors";

/** An owner field (of an API or an app) must name an existing portal user. */
export async function assertUserExists(db: DbOrTx, userId: string, field = "ownerId"): Promise<void> {
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.id, userId)).limit(1);
  if (!user) throw invalid(field, "is not a user of this portal");
}
