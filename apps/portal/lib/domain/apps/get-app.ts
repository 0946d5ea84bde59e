import { apps, users } from "@sluice/db";
import { eq } from "drizzle-orm";

import type { Actor } from "../../auth/actor";
import type { DbOrTx } from "../../db";
import { appColumns } from "./list-apps";
import { loadApp } from "./load-app";

/** One app with its owner's e-mail; 404 unless the caller may manage it. */
export async function getApp(options: { db: DbOrTx; actor: Actor; appId: string }) {
  await loadApp(options);
  const [row] = await options.db
    .select(appColumns)
    .from(apps)
    .leftJoin(users, eq(users.id, apps.ownerId))
    .where(eq(apps.id, options.appId));
  return row!;
}
