// Deleting an app deletes its grants and token metadata (cascade) and writes the
// app's tombstone, which every gateway treats as revoking all its tokens.
import { apps } from "@sluice/db";
import { eq } from "drizzle-orm";

import type { Actor } from "../../auth/actor";
import { appTombstone } from "../../catalog/records";
import { recordChange } from "../../outbox/record-change";
import type { Database } from "../../db";
import { conflict } from "../../errors";
import { loadApp } from "./load-app";

export async function deleteApp(options: { db: Database; actor: Actor; appId: string }) {
  return options.db.transaction(async (tx) => {
    const before = await loadApp({ db: tx, actor: options.actor, appId: options.appId, lock: "update" });
    if (before.kind === "console") throw conflict("appId", "the live console's app cannot be deleted; revoke its tokens instead");
    await tx.delete(apps).where(eq(apps.id, before.id));
    await recordChange(tx, options.actor, {
      action: "app.delete",
      entityType: "app",
      entityId: before.id,
      before,
      catalog: [appTombstone(before.id)],
    });
    return before;
  });
}
