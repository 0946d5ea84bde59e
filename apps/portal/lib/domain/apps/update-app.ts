import { apps } from "@sluice/db";
import { eq } from "drizzle-orm";

import type { Actor } from "../../auth/actor";
import { recordChange } from "../../outbox/record-change";
import type { Database } from "../../db";
import { translateConstraint } from "../../errors";
import type { UpdateAppInput } from "../../validation/apps";
import { checkNewOwner } from "./check-owner";
import { APP_CONSTRAINTS } from "./create-app";
import { currentAppRecords } from "./current-app-records";
import { loadApp } from "./load-app";

/** The owner, editors and admins edit an app; only editors and admins change its owner. */
export async function updateApp(options: { db: Database; actor: Actor; appId: string; input: UpdateAppInput }) {
  const { input } = options;
  try {
    return await options.db.transaction(async (tx) => {
      const before = await loadApp({ db: tx, actor: options.actor, appId: options.appId, lock: "update" });
      if (input.ownerId !== undefined && input.ownerId !== before.ownerId) await checkNewOwner(tx, options.actor, input.ownerId);
      const [after] = await tx
        .update(apps)
        .set({
          name: input.name ?? before.name,
          description: input.description ?? before.description,
          ownerId: input.ownerId ?? before.ownerId,
          updatedAt: new Date(),
        })
        .where(eq(apps.id, before.id))
        .returning();
      await recordChange(tx, options.actor, {
        action: "app.update",
        entityType: "app",
        entityId: before.id,
        before,
        after,
        // With the app's limits: a record without them would lift its plans on every gateway.
        catalog: await currentAppRecords(tx, [before.id]),
      });
      return after!;
    });
  } catch (err) {
    translateConstraint(err, APP_CONSTRAINTS);
  }
}
