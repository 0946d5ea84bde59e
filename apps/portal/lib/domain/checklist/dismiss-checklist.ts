// Hide (or bring back) the caller's own getting-started checklist. Only the
// caller's row is touched, whatever their role: it is a preference, not a
// change to the catalog, so it is not audited.
import { users } from "@sluice/db";
import { eq } from "drizzle-orm";

import type { AuthorizedActor } from "../../auth/actor";
import type { DbOrTx } from "../../db";

export async function setChecklistDismissed(options: { db: DbOrTx; actor: AuthorizedActor; dismissed: boolean }) {
  await options.db
    .update(users)
    .set({ checklistDismissedAt: options.dismissed ? new Date() : null })
    .where(eq(users.id, options.actor.userId));
}
