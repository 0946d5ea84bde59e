// What the portal shows and the API returns for an access request, and who may
// see and decide it. Deciders are the API's owner and every editor and admin;
// the requesting side is whoever may manage the app (its owner, editors,
// admins). Anyone else gets 404, the same answer as for a request that does
// not exist, so viewers cannot probe other teams' apps or APIs.
import { accessRequestEndpoints, accessRequests, apps, endpoints, plans, streamingApis, users, type AccessRequest } from "@sluice/db";
import { alias } from "drizzle-orm/pg-core";
import { asc, eq, inArray, sql, type SQL } from "drizzle-orm";

import { hasRole, type Actor } from "../../auth/actor";
import type { DbOrTx } from "../../db";
import { forbidden, notFound } from "../../errors";
import { canManageApp } from "../apps/load-app";

const requester = alias(users, "requester");
const decider = alias(users, "decider");

const viewColumns = {
  id: accessRequests.id,
  appId: accessRequests.appId,
  appName: apps.name,
  appOwnerId: apps.ownerId,
  apiId: accessRequests.apiId,
  apiName: streamingApis.name,
  apiVersion: streamingApis.version,
  apiOwnerId: streamingApis.ownerId,
  wholeApi: accessRequests.wholeApi,
  operations: accessRequests.operations,
  justification: accessRequests.justification,
  planId: accessRequests.planId,
  planName: plans.name,
  state: accessRequests.state,
  requestedBy: accessRequests.requestedBy,
  requestedByEmail: requester.email,
  requestedAt: accessRequests.requestedAt,
  /** requestedAt as PostgreSQL's text, to the microsecond: the pagination key. */
  requestedAtKey: sql<string>`${accessRequests.requestedAt}::text`,
  autoApproved: accessRequests.autoApproved,
  decidedBy: accessRequests.decidedBy,
  decidedByEmail: decider.email,
  decidedAt: accessRequests.decidedAt,
  reason: accessRequests.reason,
};

/** Rows of the view, joined with their app, API and people; the caller adds filters and order. */
export function selectAccessRequestRows(db: DbOrTx, where: SQL | undefined) {
  return db
    .select(viewColumns)
    .from(accessRequests)
    .innerJoin(apps, eq(apps.id, accessRequests.appId))
    .innerJoin(streamingApis, eq(streamingApis.id, accessRequests.apiId))
    .leftJoin(plans, eq(plans.id, accessRequests.planId))
    .leftJoin(requester, eq(requester.id, accessRequests.requestedBy))
    .leftJoin(decider, eq(decider.id, accessRequests.decidedBy))
    .where(where);
}

type Row = Awaited<ReturnType<typeof selectAccessRequestRows>>[number];

/** Adds each request's endpoints (id and path, by path); a whole-API request has none. */
export async function withEndpoints(db: DbOrTx, rows: Row[]) {
  const ids = rows.filter((r) => !r.wholeApi).map((r) => r.id);
  const links = ids.length
    ? await db
        .select({ requestId: accessRequestEndpoints.requestId, id: endpoints.id, path: endpoints.path })
        .from(accessRequestEndpoints)
        .innerJoin(endpoints, eq(endpoints.id, accessRequestEndpoints.endpointId))
        .where(inArray(accessRequestEndpoints.requestId, ids))
        .orderBy(asc(endpoints.path))
    : [];
  return rows.map(({ appOwnerId: _appOwner, apiOwnerId: _apiOwner, requestedAtKey: _key, ...row }) => ({
    ...row,
    operations: row.operations as ("subscribe" | "publish")[],
    endpoints: links.filter((l) => l.requestId === row.id).map((l) => ({ id: l.id, path: l.path })),
  }));
}

export type AccessRequestView = Awaited<ReturnType<typeof withEndpoints>>[number];

/** The API's owner, editors and admins decide requests for an API. */
export function canDecide(actor: Actor, api: { ownerId: string | null }): boolean {
  return hasRole(actor, "editor") || (api.ownerId !== null && api.ownerId === actor.userId);
}

export interface LoadedRequest {
  request: AccessRequest;
  app: { id: string; ownerId: string | null };
  api: { id: string; ownerId: string | null };
}

/**
 * Loads a request for `purpose`, 404 unless the caller may see it (the app's
 * side or a decider), 403 when they may see but not do it. `lock` locks the
 * request row so two decisions cannot both pass the pending check.
 */
export async function loadAccessRequest(options: {
  db: DbOrTx;
  actor: Actor;
  requestId: string;
  purpose: "read" | "decide" | "withdraw";
  lock?: boolean;
}): Promise<LoadedRequest> {
  const query = options.db
    .select({ request: accessRequests, appOwnerId: apps.ownerId, apiOwnerId: streamingApis.ownerId })
    .from(accessRequests)
    .innerJoin(apps, eq(apps.id, accessRequests.appId))
    .innerJoin(streamingApis, eq(streamingApis.id, accessRequests.apiId))
    .where(eq(accessRequests.id, options.requestId));
  const [row] = options.lock ? await query.for("update", { of: accessRequests }) : await query;
  if (!row) throw notFound("The access request");
  const app = { id: row.request.appId, ownerId: row.appOwnerId };
  const api = { id: row.request.apiId, ownerId: row.apiOwnerId };
  const appSide = canManageApp(options.actor, app);
  const decides = canDecide(options.actor, api);
  if (!appSide && !decides) throw notFound("The access request");
  if (options.purpose === "decide" && !decides) throw forbidden("Only the API's owner, editors and admins decide access requests.");
  if (options.purpose === "withdraw" && !appSide) throw forbidden("Only the app's owner (or an editor or admin) withdraws its requests.");
  return { request: row.request, app, api };
}
