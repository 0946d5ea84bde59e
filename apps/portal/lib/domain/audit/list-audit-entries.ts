import { auditLog } from "@sluice/db";
import { and, desc, eq, gte, ilike, lt, sql, type SQL } from "drizzle-orm";

import { pageOf } from "../../pagination";
import type { AuthorizedActor } from "../../auth/actor";
import type { DbOrTx } from "../../db";
import { invalid } from "../../errors";
import type { AuditFilter } from "../../validation/audit";
import { likePattern } from "../like-pattern";

// PostgreSQL keeps microseconds; a JavaScript Date only milliseconds. The cursor
// carries the exact instant as microseconds since the epoch, so entries that share
// a millisecond are neither skipped nor repeated between pages.
const occurredMicros = sql<string>`(extract(epoch from ${auditLog.occurredAt}) * 1000000)::bigint::text`;

/** Newest first, filtered, keyset-paginated (`cursor` is the nextCursor of the previous page, already decoded). */
export async function listAuditEntries(options: {
  db: DbOrTx;
  actor: AuthorizedActor<"editor">;
  filter: AuditFilter;
  limit: number;
  cursor?: (string | number)[];
}) {
  const { filter } = options;
  const where: (SQL | undefined)[] = [
    filter.entityType ? eq(auditLog.entityType, filter.entityType) : undefined,
    filter.entityId ? eq(auditLog.entityId, filter.entityId) : undefined,
    filter.action ? eq(auditLog.action, filter.action) : undefined,
    filter.actor ? ilike(auditLog.actor, likePattern(filter.actor)) : undefined,
    filter.from ? gte(auditLog.occurredAt, new Date(filter.from)) : undefined,
    filter.to ? lt(auditLog.occurredAt, new Date(filter.to)) : undefined,
  ];
  if (options.cursor) {
    const [micros, id] = options.cursor;
    if (typeof micros !== "string" || !/^-?\d{1,20}$/.test(micros) || typeof id !== "number" || !Number.isSafeInteger(id)) {
      throw invalid("cursor", "is not a cursor from this API; use the nextCursor of the previous page");
    }
    where.push(
      sql`(${auditLog.occurredAt}, ${auditLog.id}) < ('epoch'::timestamptz + ${micros}::bigint * interval '1 microsecond', ${id})`,
    );
  }
  const rows = await options.db
    .select({
      id: auditLog.id,
      occurredAt: auditLog.occurredAt,
      actor: auditLog.actor,
      actorUserId: auditLog.actorUserId,
      action: auditLog.action,
      entityType: auditLog.entityType,
      entityId: auditLog.entityId,
      before: auditLog.before,
      after: auditLog.after,
      micros: occurredMicros,
    })
    .from(auditLog)
    .where(and(...where))
    .orderBy(desc(auditLog.occurredAt), desc(auditLog.id))
    .limit(options.limit + 1);
  const page = pageOf(rows, options.limit, (r) => [r.micros, r.id]);
  return { items: page.items.map(({ micros: _micros, ...entry }) => entry), nextCursor: page.nextCursor };
}
