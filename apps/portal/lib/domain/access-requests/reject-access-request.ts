// A decider rejects a pending request with a reason the requester sees on the app page.
import { accessRequests } from "@sluice/db";
import { eq } from "drizzle-orm";

import type { AuthorizedActor } from "../../auth/actor";
import type { Database } from "../../db";
import { recordChange } from "../../outbox/record-change";
import type { RejectAccessRequestInput } from "../../validation/access-requests";
import { enqueueWebhook } from "../webhooks/enqueue-webhook";
import { loadAccessRequest } from "./access-request-view";
import { assertPending } from "./assert-pending";

export async function rejectAccessRequest(options: {
  db: Database;
  actor: AuthorizedActor;
  requestId: string;
  input: RejectAccessRequestInput;
}) {
  return options.db.transaction(async (tx) => {
    const { request } = await loadAccessRequest({
      db: tx,
      actor: options.actor,
      requestId: options.requestId,
      purpose: "decide",
      lock: true,
    });
    assertPending(request);
    const [after] = await tx
      .update(accessRequests)
      .set({ state: "rejected", decidedBy: options.actor.userId || null, decidedAt: new Date(), reason: options.input.reason })
      .where(eq(accessRequests.id, request.id))
      .returning();
    await recordChange(tx, options.actor, {
      action: "access_request.reject",
      entityType: "access_request",
      entityId: request.id,
      before: request,
      after,
    });
    await enqueueWebhook(tx, "access_request.rejected", { request: after });
    return after!;
  });
}
