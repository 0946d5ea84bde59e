// Deleting an API deletes its endpoints (ON DELETE CASCADE) and tombstones each
// of them on the catalog topic, so gateways end their subscriptions.
import { endpoints, streamingApis } from "@sluice/db";
import { asc, eq } from "drizzle-orm";

import type { AuthorizedActor } from "../../auth/actor";
import { endpointTombstone } from "../../catalog/records";
import { recordChange } from "../../outbox/record-change";
import type { Database } from "../../db";
import { notFound } from "../../errors";

export async function deleteApi(options: {
  db: Database;
  actor: AuthorizedActor<"editor">;
  apiId: string;
}): Promise<{ deletedEndpoints: number }> {
  return options.db.transaction(async (tx) => {
    const [before] = await tx.select().from(streamingApis).where(eq(streamingApis.id, options.apiId)).for("update");
    if (!before) throw notFound("The API");
    const gone = await tx
      .select({ id: endpoints.id, path: endpoints.path })
      .from(endpoints)
      .where(eq(endpoints.apiId, before.id))
      .orderBy(asc(endpoints.path));
    await tx.delete(streamingApis).where(eq(streamingApis.id, before.id));
    await recordChange(tx, options.actor, {
      action: "api.delete",
      entityType: "api",
      entityId: before.id,
      before: { ...before, endpointCount: gone.length },
      catalog: gone.map((e) => endpointTombstone(e.id)),
    });
    return { deletedEndpoints: gone.length };
  });
}
