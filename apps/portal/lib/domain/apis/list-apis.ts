// The catalog: APIs by name and version, searchable and filterable by tag,
// keyset-paginated on (name, version) — the unique index — so any page is cheap.
import { streamingApis } from "@sluice/db";
import { and, arrayContains, asc, ilike, or, sql, type SQL } from "drizzle-orm";

import { decodeCursor, pageOf } from "../../pagination";
import type { AuthorizedActor } from "../../auth/actor";
import type { DbOrTx } from "../../db";
import type { ListApisQuery } from "../../validation/apis";
import { selectApiViews, toApiView } from "./api-view";
import { likePattern } from "../like-pattern";

export async function listApis(options: { db: DbOrTx; actor: AuthorizedActor; query: ListApisQuery }) {
  const { query } = options;
  const after = decodeCursor(query.cursor, 2);
  const conditions: SQL[] = [];
  if (after) conditions.push(sql`(${streamingApis.name}, ${streamingApis.version}) > (${String(after[0])}, ${String(after[1])})`);
  if (query.tag) conditions.push(arrayContains(streamingApis.tags, [query.tag]));
  if (query.q) {
    const pattern = likePattern(query.q);
    conditions.push(
      or(
        ilike(streamingApis.name, pattern),
        ilike(streamingApis.description, pattern),
        sql`array_to_string(${streamingApis.tags}, ' ') ilike ${pattern}`,
      )!,
    );
  }
  const rows = await selectApiViews(options.db)
    .where(and(...conditions))
    .orderBy(asc(streamingApis.name), asc(streamingApis.version))
    .limit(query.limit + 1);
  return pageOf(rows.map(toApiView), query.limit, (api) => [api.name, api.version]);
}

/** Every tag in use with how many APIs carry it, for the catalog's tag filter. */
export async function listApiTags(options: { db: DbOrTx; actor: AuthorizedActor }): Promise<{ tag: string; count: number }[]> {
  const result = await options.db.execute<{ tag: string; count: number }>(
    sql`select tag, count(*)::int as count from ${streamingApis}, unnest(${streamingApis.tags}) as tag group by tag order by count(*) desc, tag limit 50`,
  );
  return result.rows;
}
