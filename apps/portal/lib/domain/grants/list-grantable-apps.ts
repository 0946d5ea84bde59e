// The apps "Grant to an app…" offers: grants are the editors' decision, so an
// editor or admin may pick any app; their own come first. The live console's
// app is left out (it has no grants).
import { apps, users } from "@sluice/db";
import { asc, eq, sql } from "drizzle-orm";

import type { AuthorizedActor } from "../../auth/actor";
import type { DbOrTx } from "../../db";

const MAX_APPS = 500;

export async function listGrantableApps(options: { db: DbOrTx; actor: AuthorizedActor<"editor"> }) {
  const rows = await options.db
    .select({ id: apps.id, name: apps.name, ownerId: apps.ownerId, ownerEmail: users.email, ownerName: users.displayName })
    .from(apps)
    .leftJoin(users, eq(users.id, apps.ownerId))
    .where(eq(apps.kind, "standard"))
    .orderBy(sql`${apps.ownerId} is not distinct from ${options.actor.userId} desc`, asc(apps.name), asc(apps.id))
    .limit(MAX_APPS);
  return rows.map(({ ownerName, ownerEmail, ...app }) => ({
    ...app,
    own: app.ownerId === options.actor.userId,
    owner: ownerName || ownerEmail || null,
  }));
}
