// Who may see which usage. Fail closed: every scope names the rule that lets the
// caller in, and anything else is refused.
//   all traffic, gateway nodes  editors and admins
//   an API or its endpoint      editors, admins and the API's owner (403 for others: the API itself is public in the catalog)
//   an app                      editors, admins and the app's owner (404 for others, as for the app itself)
import { endpoints, streamingApis } from "@sluice/db";
import { eq } from "drizzle-orm";

import { hasRole, type Actor } from "../../auth/actor";
import type { DbOrTx } from "../../db";
import { forbidden, notFound } from "../../errors";
import { loadApp } from "../apps/load-app";

export type UsageScope =
  | { kind: "all" }
  | { kind: "api"; apiId: string; name: string; version: string }
  | { kind: "endpoint"; endpointId: string; path: string; apiId: string; apiName: string }
  | { kind: "app"; appId: string; name: string };

const apiOwnerOnly = () => forbidden("Only the API's owner, editors and admins see its usage.");

export function allUsageScope(actor: Actor): UsageScope {
  if (!hasRole(actor, "editor")) throw forbidden("Only editors and admins see the traffic of every API.");
  return { kind: "all" };
}

export async function apiUsageScope(options: { db: DbOrTx; actor: Actor; apiId: string }): Promise<UsageScope> {
  const [api] = await options.db.select().from(streamingApis).where(eq(streamingApis.id, options.apiId));
  if (!api) throw notFound("The API");
  if (!hasRole(options.actor, "editor") && api.ownerId !== options.actor.userId) throw apiOwnerOnly();
  return { kind: "api", apiId: api.id, name: api.name, version: api.version };
}

export async function endpointUsageScope(options: { db: DbOrTx; actor: Actor; endpointId: string }): Promise<UsageScope> {
  const [row] = await options.db
    .select({
      id: endpoints.id,
      path: endpoints.path,
      apiId: streamingApis.id,
      apiName: streamingApis.name,
      ownerId: streamingApis.ownerId,
    })
    .from(endpoints)
    .innerJoin(streamingApis, eq(streamingApis.id, endpoints.apiId))
    .where(eq(endpoints.id, options.endpointId));
  if (!row) throw notFound("The endpoint");
  if (!hasRole(options.actor, "editor") && row.ownerId !== options.actor.userId) throw apiOwnerOnly();
  return { kind: "endpoint", endpointId: row.id, path: row.path, apiId: row.apiId, apiName: row.apiName };
}

export async function appUsageScope(options: { db: DbOrTx; actor: Actor; appId: string }): Promise<UsageScope> {
  const app = await loadApp(options);
  return { kind: "app", appId: app.id, name: app.name };
}

/** Whether the actor may open the traffic view of an API (pages use it to show or hide the link). */
export function canSeeApiUsage(actor: Actor, api: { ownerId: string | null }): boolean {
  return hasRole(actor, "editor") || api.ownerId === actor.userId;
}

/** Whether the actor may open the traffic view of the API with this id (false when it does not exist). */
export async function mayViewApiUsage(options: { db: DbOrTx; actor: Actor; apiId: string }): Promise<boolean> {
  if (hasRole(options.actor, "editor")) return true;
  const [api] = await options.db.select({ ownerId: streamingApis.ownerId }).from(streamingApis).where(eq(streamingApis.id, options.apiId));
  return api !== undefined && canSeeApiUsage(options.actor, api);
}
