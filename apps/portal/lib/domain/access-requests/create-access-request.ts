// An app's owner (or an editor/admin managing the app) asks for access to an API:
// the whole API or chosen endpoints, with operations each chosen endpoint
// allows, and a justification for the decider. One pending request per app and
// target: a second pending request that overlaps the first (the same endpoint,
// or the whole API on either side) is 409 until the first is decided or withdrawn.
// When the API has plans the request names one; a plan with autoApprove has the
// request approved by the portal itself (audited as "system", no decider) in
// this same transaction, so the requester never sees it pending.
import { accessRequestEndpoints, accessRequests, endpoints, plans, streamingApis } from "@sluice/db";
import { and, asc, eq, inArray } from "drizzle-orm";

import type { AuthorizedActor } from "../../auth/actor";
import type { Database, Tx } from "../../db";
import { AppError, conflict, invalid, type FieldError } from "../../errors";
import { SYSTEM_ACTOR } from "../../auth/system-actor";
import { recordChange } from "../../outbox/record-change";
import type { CreateAccessRequestInput } from "../../validation/access-requests";
import { loadApp } from "../apps/load-app";
import { enqueueWebhook } from "../webhooks/enqueue-webhook";
import { approveInTransaction } from "./approve-access-request";

export async function createAccessRequest(options: {
  db: Database;
  actor: AuthorizedActor;
  appId: string;
  input: CreateAccessRequestInput;
}) {
  const { input, actor } = options;
  return options.db.transaction(async (tx) => {
    // The plan first (share: not changed or deleted until this commits), then the app: the lock order of current-app-records.ts.
    const [chosenPlan] = input.planId ? await tx.select().from(plans).where(eq(plans.id, input.planId)).for("share") : [];
    // Locked for update: two requests of one app are checked for overlap one after the other.
    const app = await loadApp({ db: tx, actor, appId: options.appId, lock: "update" });
    if (app.kind === "console") throw conflict("appId", "the live console's app has no grants: each console token names its one endpoint");
    const [api] = await tx.select({ id: streamingApis.id }).from(streamingApis).where(eq(streamingApis.id, input.apiId));
    if (!api) throw invalid("apiId", "there is no API with this id");
    if (input.planId && chosenPlan?.apiId !== api.id) throw invalid("planId", "is not a plan of this API");
    if (!input.planId) {
      const offered = await tx.select({ name: plans.name }).from(plans).where(eq(plans.apiId, api.id)).orderBy(asc(plans.name));
      if (offered.length) throw invalid("planId", `choose one of the API's plans: ${offered.map((p) => p.name).join(", ")}`);
    }

    const operations = (["subscribe", "publish"] as const).filter((op) => input.operations.includes(op));
    const wholeApi = input.endpointIds === undefined;
    const chosen = await tx
      .select({ id: endpoints.id, path: endpoints.path, operations: endpoints.operations })
      .from(endpoints)
      .where(wholeApi ? eq(endpoints.apiId, api.id) : and(eq(endpoints.apiId, api.id), inArray(endpoints.id, input.endpointIds!)));
    if (wholeApi) {
      if (chosen.length === 0) throw invalid("apiId", "the API has no endpoints yet");
      if (!chosen.some((e) => operations.some((op) => e.operations.includes(op))))
        throw invalid("operations", `no endpoint of the API allows ${operations.join(" or ")}`);
    } else {
      const errors: FieldError[] = [];
      input.endpointIds!.forEach((id, i) => {
        const endpoint = chosen.find((e) => e.id === id);
        if (!endpoint) errors.push({ field: `endpointIds.${i}`, message: "is not an endpoint of this API" });
        else {
          const refused = operations.filter((op) => !endpoint.operations.includes(op));
          if (refused.length) errors.push({ field: "operations", message: `${endpoint.path} does not allow ${refused.join(" or ")}` });
        }
      });
      if (errors.length)
        throw new AppError(
          "validation_failed",
          422,
          `The input is not valid. ${errors.map((e) => `${e.field}: ${e.message}`).join("; ")}`,
          errors,
        );
    }

    await assertNoOverlap(tx, { appId: app.id, apiId: api.id, wholeApi, endpointIds: chosen.map((e) => e.id) });

    const [request] = await tx
      .insert(accessRequests)
      .values({
        appId: app.id,
        apiId: api.id,
        wholeApi,
        operations,
        justification: input.justification,
        planId: chosenPlan?.id ?? null,
        requestedBy: actor.userId || null,
      })
      .returning();
    if (!wholeApi) await tx.insert(accessRequestEndpoints).values(chosen.map((e) => ({ requestId: request!.id, endpointId: e.id })));
    const after = { ...request!, endpoints: wholeApi ? [] : chosen.map((e) => e.path).sort() };
    await recordChange(tx, actor, { action: "access_request.create", entityType: "access_request", entityId: request!.id, after });
    await enqueueWebhook(tx, "access_request.created", { request: after });
    if (chosenPlan?.autoApprove) return (await approveInTransaction(tx, SYSTEM_ACTOR, request!, { automatic: true })).request;
    return request!;
  });
}

async function assertNoOverlap(tx: Tx, target: { appId: string; apiId: string; wholeApi: boolean; endpointIds: string[] }) {
  const pending = await tx
    .select({ id: accessRequests.id, wholeApi: accessRequests.wholeApi })
    .from(accessRequests)
    .where(and(eq(accessRequests.appId, target.appId), eq(accessRequests.apiId, target.apiId), eq(accessRequests.state, "pending")));
  if (pending.length === 0) return;
  if (target.wholeApi || pending.some((p) => p.wholeApi))
    throw conflict("apiId", "the app already has a pending request for this API; wait for its decision or withdraw it");
  const overlapping = await tx
    .select({ endpointId: accessRequestEndpoints.endpointId })
    .from(accessRequestEndpoints)
    .where(
      and(
        inArray(
          accessRequestEndpoints.requestId,
          pending.map((p) => p.id),
        ),
        inArray(accessRequestEndpoints.endpointId, target.endpointIds),
      ),
    )
    .limit(1);
  if (overlapping.length)
    throw conflict("endpointIds", "the app already has a pending request for one of these endpoints; wait for its decision or withdraw it");
}
