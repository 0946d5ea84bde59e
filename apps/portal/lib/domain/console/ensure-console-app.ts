// The live console's tokens belong to one app of kind "console", made at the
// first start (scripts/prepare.ts) so the gateways know it before anyone clicks
// "Try it", and again here if it is missing (a database restored without it).
import { apps, type App } from "@sluice/db";
import { eq, sql } from "drizzle-orm";

import { SYSTEM_ACTOR } from "../../auth/system-actor";
import { appRecord } from "../../catalog/records";
import { recordChange } from "../../outbox/record-change";
import type { Database } from "../../db";

export const CONSOLE_APP_NAME = "Live console";

export async function ensureConsoleApp(options: { db: Database }): Promise<{ app: App; created: boolean }> {
  const [existing] = await options.db.select().from(apps).where(eq(apps.kind, "console"));
  if (existing) return { app: existing, created: false };
  return options.db.transaction(async (tx) => {
    const [app] = await tx
      .insert(apps)
      .values({
        kind: "console",
        name: CONSOLE_APP_NAME,
        description:
          "Short-lived tokens minted by the portal's live console, one endpoint each, for the signed-in user who clicked Try it.",
        ownerId: null,
      })
      .onConflictDoNothing({ target: apps.kind, where: sql`${apps.kind} = 'console'` })
      .returning();
    if (!app) {
      // Another process made it between our read and our insert.
      const [again] = await tx.select().from(apps).where(eq(apps.kind, "console"));
      return { app: again!, created: false };
    }
    await recordChange(tx, SYSTEM_ACTOR, {
      action: "app.create",
      entityType: "app",
      entityId: app.id,
      after: app,
      catalog: [appRecord(app)],
    });
    return { app, created: true };
  });
}
