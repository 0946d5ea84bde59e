// Who may see and manage an app: its owner, and every editor and admin. Anyone
// else gets 404, the same answer as for an app that does not exist, so viewers
// cannot probe other teams' apps.
import { apps, type App } from "@sluice/db";
import { eq } from "drizzle-orm";

import { hasRole, type Actor } from "../../auth/actor";
import type { DbOrTx } from "../../db";
import { notFound } from "../../errors";

export function canManageApp(actor: Actor, app: Pick<App, "ownerId">): boolean {
  return app.ownerId === actor.userId || hasRole(actor, "editor");
}

export async function loadApp(options: { db: DbOrTx; actor: Actor; appId: string; lock?: "update" | "share" }): Promise<App> {
  const query = options.db.select().from(apps).where(eq(apps.id, options.appId));
  const [app] = options.lock ? await query.for(options.lock) : await query;
  if (!app || !canManageApp(options.actor, app)) throw notFound("The app");
  return app;
}
