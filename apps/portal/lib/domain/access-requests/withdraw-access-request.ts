// The requesting side (the app's owner, or an editor/admin) takes back a pending request.
import { accessRequests } from "@sluice/db";
import { eq } from "drizzle-orm";

import type { AuthorizedActor } from "../../auth/actor";
import type { Database } from "../../db";
import { recordChange } from "../../outbox/record-change";
import { enqueueWebhook } from "../webhooks/enqueue-webhook";
import { loadAccessRequest } from "./access-request-view";
import { assertPending } from "./assert-pending";

export async function withdrawAccessRequest(options: { db: Database; actor: AuthorizedActor; requestId: string }) {
  return options.db.transaction(async (tx) => {
    const { request } = await loadAccessRequest({
      db: tx,
      actor: options.actor,
      requestId: options.requestId,
      purpose: "withdraw",
      lock: true,
    });
    assertPending(request);
    const [after] = await tx
      .update(accessRequests)
      .set({ state: "withdrawn", decidedBy: options.actor.userId || null, decidedAt: new Date() })
      .where(eq(accessRequests.id, request.id))
      .returning();
    await recordChange(tx, options.actor, {
      action: "access_request.withdraw",
      entityType: "access_request",
      entityId: request.id,
      before: request,
      after,
    });
    await enqueueWebhook(tx, "access_request.withdrawn", { request: after });
    return after!;
  });
}
