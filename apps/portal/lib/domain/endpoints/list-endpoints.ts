// Endpoints of one API or of the whole catalog, by path, keyset-paginated on the
// unique path index: the 10,000th endpoint costs what the first does.
import { endpoints, streamingApis } from "@sluice/db";
import { and, asc, eq, gt, ilike, or, type SQL } from "drizzle-orm";

import { decodeCursor, pageOf } from "../../pagination";
import type { AuthorizedActor } from "../../auth/actor";
import type { DbOrTx } from "../../db";
import { notFound } from "../../errors";
import type { ListEndpointsQuery } from "../../validation/endpoints";
import { likePattern } from "../like-pattern";
import { endpointSummaryColumns } from "./endpoint-view";

export async function listEndpoints(options: { db: DbOrTx; actor: AuthorizedActor; apiId?: string; query: ListEndpointsQuery }) {
  const { query } = options;
  const after = decodeCursor(query.cursor, 1);
  const conditions: (SQL | undefined)[] = [];
  if (options.apiId !== undefined) {
    const [api] = await options.db.select({ id: streamingApis.id }).from(streamingApis).where(eq(streamingApis.id, options.apiId)).limit(1);
    if (!api) throw notFound("The API");
    conditions.push(eq(endpoints.apiId, options.apiId));
  }
  if (after) conditions.push(gt(endpoints.path, String(after[0])));
  if (query.q) {
    const pattern = likePattern(query.q);
    conditions.push(or(ilike(endpoints.path, pattern), ilike(endpoints.description, pattern)));
  }
  const rows = await options.db
    .select(endpointSummaryColumns)
    .from(endpoints)
    .innerJoin(streamingApis, eq(streamingApis.id, endpoints.apiId))
    .where(and(...conditions))
    .orderBy(asc(endpoints.path))
    .limit(query.limit + 1);
  const items = rows.map(({ apiName, apiVersion, ...e }) => ({
    ...e,
    operations: e.operations as ("subscribe" | "publish")[],
    api: { id: e.apiId, name: apiName, version: apiVersion },
  }));
  return pageOf(items, query.limit, (e) => [e.path]);
}
