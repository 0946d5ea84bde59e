// Removing an endpoint tombstones its catalog record; gateways then end its
// subscriptions (code 4004).
import { endpoints } from "@sluice/db";
import { eq } from "drizzle-orm";

import type { AuthorizedActor } from "../../auth/actor";
import { endpointTombstone } from "../../catalog/records";
import { recordChange } from "../../outbox/record-change";
import type { Database } from "../../db";
import { notFound } from "../../errors";

export async function deleteEndpoint(options: { db: Database; actor: AuthorizedActor<"editor">; endpointId: string }): Promise<void> {
  await options.db.transaction(async (tx) => {
    const [before] = await tx.delete(endpoints).where(eq(endpoints.id, options.endpointId)).returning();
    if (!before) throw notFound("The endpoint");
    await recordChange(tx, options.actor, {
      action: "endpoint.delete",
      entityType: "endpoint",
      entityId: before.id,
      before,
      catalog: [endpointTombstone(before.id)],
    });
  });
}
