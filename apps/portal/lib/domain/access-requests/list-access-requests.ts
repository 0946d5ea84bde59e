// Access requests, newest first, keyset-paginated on (requested_at, id). The
// inbox shows deciders what they decide: editors and admins every request, an
// API's owner the requests for the APIs they own, anyone else nothing. An app's
// own list (listAppAccessRequests) is for whoever may manage the app.
import { accessRequests, streamingApis, type AccessRequestState } from "@sluice/db";
import { and, desc, eq, lt, or, sql, type SQL } from "drizzle-orm";
import { z } from "zod";

import { hasRole, type Actor } from "../../auth/actor";
import type { DbOrTx } from "../../db";
import { invalid } from "../../errors";
import { decodeCursor, pageOf } from "../../pagination";
import { loadApp } from "../apps/load-app";
import { selectAccessRequestRows, withEndpoints } from "./access-request-view";

export interface AccessRequestFilters {
  state?: AccessRequestState;
  apiId?: string;
  appId?: string;
}

export async function listAccessRequests(options: {
  db: DbOrTx;
  actor: Actor;
  filters: AccessRequestFilters;
  limit: number;
  cursor?: string;
}) {
  const visible = hasRole(options.actor, "editor") ? undefined : eq(streamingApis.ownerId, options.actor.userId);
  return pageOfRequests(options, [visible]);
}

export async function listAppAccessRequests(options: { db: DbOrTx; actor: Actor; appId: string; limit: number; cursor?: string }) {
  await loadApp(options);
  return pageOfRequests({ ...options, filters: { appId: options.appId } }, []);
}

async function pageOfRequests(
  options: { db: DbOrTx; filters: AccessRequestFilters; limit: number; cursor?: string },
  extra: (SQL | undefined)[],
) {
  const { filters } = options;
  const where: (SQL | undefined)[] = [
    ...extra,
    filters.state ? eq(accessRequests.state, filters.state) : undefined,
    filters.apiId ? eq(accessRequests.apiId, filters.apiId) : undefined,
    filters.appId ? eq(accessRequests.appId, filters.appId) : undefined,
  ];
  const cursor = decodeCursor(options.cursor, 2);
  if (cursor) {
    const [at, id] = cursor as [string, string];
    if (Number.isNaN(Date.parse(at)) || !z.uuid().safeParse(id).success)
      throw invalid("cursor", "is not a cursor from this API; use the nextCursor of the previous page");
    const atSql = sql`${at}::timestamptz`;
    where.push(
      or(lt(accessRequests.requestedAt, atSql), and(eq(accessRequests.requestedAt, atSql), lt(accessRequests.id, sql`${id}::uuid`))),
    );
  }
  const rows = await selectAccessRequestRows(options.db, and(...where))
    .orderBy(desc(accessRequests.requestedAt), desc(accessRequests.id))
    .limit(options.limit + 1);
  // The cursor keeps PostgreSQL's microseconds (requestedAtKey): a JavaScript Date would round them off and skip rows.
  const page = pageOf(rows, options.limit, (r) => [r.requestedAtKey, r.id]);
  return { ...page, items: await withEndpoints(options.db, page.items) };
}
