import { apps } from "@sluice/db";

import type { Actor } from "../../auth/actor";
import { appRecord } from "../../catalog/records";
import { recordChange } from "../../outbox/record-change";
import type { Database } from "../../db";
import { translateConstraint } from "../../errors";
import type { CreateAppInput } from "../../validation/apps";
import { checkNewOwner } from "./check-owner";

export const APP_CONSTRAINTS = {
  apps_owner_name_key: { field: "name", message: "the owner already has an app with this name" },
  apps_name_length: { field: "name", message: "must be 1 to 100 characters" },
};

/** Any signed-in user creates apps for themselves; editors and admins may set another owner. */
export async function createApp(options: { db: Database; actor: Actor; input: CreateAppInput }) {
  const { input } = options;
  const ownerId = input.ownerId ?? options.actor.userId;
  await checkNewOwner(options.db, options.actor, ownerId);
  try {
    return await options.db.transaction(async (tx) => {
      const [app] = await tx.insert(apps).values({ name: input.name, description: input.description, ownerId }).returning();
      await recordChange(tx, options.actor, {
        action: "app.create",
        entityType: "app",
        entityId: app!.id,
        after: app,
        catalog: [appRecord(app!)],
      });
      return app!;
    });
  } catch (err) {
    translateConstraint(err, APP_CONSTRAINTS);
  }
}
