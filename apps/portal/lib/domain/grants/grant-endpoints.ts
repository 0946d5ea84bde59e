// "Grant to an app…" from the catalog: an endpoint page grants that endpoint, an
// API page the endpoints chosen from it. Each endpoint becomes the grant pattern
// the gateway serves it by (its exact path, or `/topic/*` for a parameterised
// endpoint) with the chosen operations the endpoint allows; the grants go in
// through addGrants, so validation, audit and outbox are the app page's.
import { endpoints } from "@sluice/db";
import { inArray } from "drizzle-orm";

import type { AuthorizedActor } from "../../auth/actor";
import type { Database } from "../../db";
import { invalid } from "../../errors";
import type { TopicLookup } from "../../kafka/admin";
import type { Op } from "../../permissions/match";
import { addGrants } from "./add-grant";

/** The grant pattern an endpoint is served by. */
export function endpointGrantPattern(endpoint: { path: string; topic: string; keyParam: string | null }): string {
  return endpoint.keyParam === null ? endpoint.path : `/${endpoint.topic}/*`;
}

export async function grantEndpoints(options: {
  db: Database;
  actor: AuthorizedActor<"editor">;
  appId: string;
  /** Endpoints of one API (the API page) or the one endpoint (the endpoint page). */
  apiId: string;
  endpointIds: string[];
  operations: Op[];
  planId: string | null;
  topics?: TopicLookup;
}) {
  if (options.endpointIds.length === 0) throw invalid("endpointIds", "choose at least one endpoint");
  const rows = await options.db.select().from(endpoints).where(inArray(endpoints.id, options.endpointIds));
  const chosen = rows.filter((e) => e.apiId === options.apiId);
  if (chosen.length !== new Set(options.endpointIds).size) throw invalid("endpointIds", "names an endpoint that is not of this API");
  const inputs = chosen.flatMap((e) => {
    const operations = options.operations.filter((op) => e.operations.includes(op));
    return operations.length ? [{ endpointPattern: endpointGrantPattern(e), operations, planId: options.planId }] : [];
  });
  if (inputs.length === 0) throw invalid("operations", "the chosen endpoints allow none of the chosen operations");
  // Two parameterised endpoints cannot share a topic, and exact paths are unique: the patterns are distinct.
  return addGrants({ db: options.db, actor: options.actor, appId: options.appId, inputs, topics: options.topics });
}
