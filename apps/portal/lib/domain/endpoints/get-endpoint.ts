import { endpoints, streamingApis } from "@sluice/db";
import { eq } from "drizzle-orm";

import type { AuthorizedActor } from "../../auth/actor";
import type { DbOrTx } from "../../db";
import { notFound } from "../../errors";
import { toEndpointView, type EndpointView } from "./endpoint-view";

/** One endpoint with its API; `apiId`, when given, must match (page URLs nest endpoints under their API). */
export async function getEndpoint(options: {
  db: DbOrTx;
  actor: AuthorizedActor;
  endpointId: string;
  apiId?: string;
}): Promise<EndpointView> {
  const [row] = await options.db
    .select({ endpoint: endpoints, api: { id: streamingApis.id, name: streamingApis.name, version: streamingApis.version } })
    .from(endpoints)
    .innerJoin(streamingApis, eq(streamingApis.id, endpoints.apiId))
    .where(eq(endpoints.id, options.endpointId))
    .limit(1);
  if (!row || (options.apiId !== undefined && row.api.id !== options.apiId)) throw notFound("The endpoint");
  return toEndpointView(row.endpoint, row.api);
}
