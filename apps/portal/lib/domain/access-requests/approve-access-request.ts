// Approving a request creates the app's grants in the same transaction as the
// decision, so a request is never approved without its grants (or vice versa).
// What is granted: one grant per endpoint, for the requested operations the
// endpoint allows now; an exact endpoint's grant is its path, a parameterised
// endpoint's (/prices/{symbol}) is `/prices/*`, the pattern for every key of
// its topic. A whole-API request is granted the endpoints the API has at
// approval; endpoints added later need a new request. A grant the app already
// has is not an error: one that covers the access is left alone, one for the
// same pattern with fewer operations gains the missing ones. A request with a
// plan puts its grants under that plan: a grant is "already covering" only
// under the same plan, a grant of the same pattern moves to the request's plan,
// and the app's record goes out with its new limits.
import { accessRequestEndpoints, accessRequests, appGrants, apps, endpoints, plans, type AccessRequest, type AppGrant } from "@sluice/db";
import { eq } from "drizzle-orm";

import type { AuthorizedActor } from "../../auth/actor";
import type { Database, Tx } from "../../db";
import { conflict } from "../../errors";
import { recordChange } from "../../outbox/record-change";
import { currentAppRecords } from "../apps/current-app-records";
import { covers, parsePattern, type Op } from "../../permissions/match";
import { enqueueWebhook } from "../webhooks/enqueue-webhook";
import { loadAccessRequest } from "./access-request-view";
import { assertPending } from "./assert-pending";

export async function approveAccessRequest(options: { db: Database; actor: AuthorizedActor; requestId: string }) {
  return options.db.transaction(async (tx) => {
    const { request } = await loadAccessRequest({
      db: tx,
      actor: options.actor,
      requestId: options.requestId,
      purpose: "decide",
      lock: true,
    });
    return approveInTransaction(tx, options.actor, request);
  });
}

/** The approval itself, for callers that already hold the request (a later auto-approval joins the create transaction). */
export async function approveInTransaction(tx: Tx, actor: AuthorizedActor, request: AccessRequest, options: { automatic?: boolean } = {}) {
  assertPending(request);
  const wanted = await grantsFor(tx, request);
  if (wanted.size === 0)
    throw conflict("state", "nothing is left to grant: the endpoints asked for were deleted or no longer allow these operations");

  const planId = request.planId;
  // The plan before the app (current-app-records.ts): a concurrent edit of the plan then sees these grants.
  if (planId) await tx.select({ id: plans.id }).from(plans).where(eq(plans.id, planId)).for("share");
  // Locking the app row waits out addGrant, removeGrant and mints of this app (they hold it shared),
  // so the grants read here are the ones this approval extends.
  await tx.select({ id: apps.id }).from(apps).where(eq(apps.id, request.appId)).for("update");
  const existing = await tx.select().from(appGrants).where(eq(appGrants.appId, request.appId));
  const created: AppGrant[] = [];
  const extended: AppGrant[] = [];
  const alreadyCovered: string[] = [];
  for (const [pattern, operations] of wanted) {
    const parsed = parsePattern(pattern);
    const missing = operations.filter(
      (op) =>
        !existing.some((g) => {
          const p = parsePattern(g.endpointPattern);
          return p.ok && parsed.ok && g.operations.includes(op) && covers(p.value, parsed.value) && (!planId || g.planId === planId);
        }),
    );
    if (missing.length === 0) {
      alreadyCovered.push(pattern);
      continue;
    }
    const same = existing.find((g) => g.endpointPattern === pattern);
    if (same) {
      const union = (["subscribe", "publish"] as const).filter((op) => same.operations.includes(op) || operations.includes(op));
      const [after] = await tx
        .update(appGrants)
        .set({ operations: union, planId: planId ?? same.planId })
        .where(eq(appGrants.id, same.id))
        .returning();
      await recordChange(tx, actor, { action: "grant.update", entityType: "app_grant", entityId: same.id, before: same, after });
      extended.push(after!);
    } else {
      const [grant] = await tx
        .insert(appGrants)
        .values({ appId: request.appId, endpointPattern: pattern, operations, grantedBy: actor.userId || null, planId })
        .returning();
      await recordChange(tx, actor, { action: "grant.create", entityType: "app_grant", entityId: grant!.id, after: grant });
      created.push(grant!);
    }
  }

  const [after] = await tx
    .update(accessRequests)
    .set({ state: "approved", decidedBy: actor.userId || null, decidedAt: new Date(), autoApproved: options.automatic ?? false })
    .where(eq(accessRequests.id, request.id))
    .returning();
  await recordChange(tx, actor, {
    action: "access_request.approve",
    entityType: "access_request",
    entityId: request.id,
    before: request,
    after: { ...after, grants: { created, extended, alreadyCovered } },
    catalog: planId ? await currentAppRecords(tx, [request.appId]) : [],
  });
  await enqueueWebhook(tx, "access_request.approved", { request: after, grants: { created, extended, alreadyCovered } });
  return { request: after!, grants: { created, extended, alreadyCovered } };
}

/** The grant pattern → operations an approval of `request` gives, from the endpoints as they are now. */
async function grantsFor(tx: Tx, request: AccessRequest): Promise<Map<string, Op[]>> {
  const columns = { path: endpoints.path, topic: endpoints.topic, keyParam: endpoints.keyParam, operations: endpoints.operations };
  const targets = request.wholeApi
    ? await tx.select(columns).from(endpoints).where(eq(endpoints.apiId, request.apiId))
    : await tx
        .select(columns)
        .from(accessRequestEndpoints)
        .innerJoin(endpoints, eq(endpoints.id, accessRequestEndpoints.endpointId))
        .where(eq(accessRequestEndpoints.requestId, request.id));
  const wanted = new Map<string, Op[]>();
  for (const endpoint of targets) {
    const ops = (["subscribe", "publish"] as const).filter((op) => request.operations.includes(op) && endpoint.operations.includes(op));
    if (ops.length === 0) continue;
    const parsed = parsePattern(endpoint.keyParam === null ? endpoint.path : `/${endpoint.topic}/*`);
    if (!parsed.ok) continue; // The endpoints' own checks keep this from happening.
    const before = wanted.get(parsed.value.canonical) ?? [];
    wanted.set(
      parsed.value.canonical,
      (["subscribe", "publish"] as const).filter((op) => before.includes(op) || ops.includes(op)),
    );
  }
  return wanted;
}
