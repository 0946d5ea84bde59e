import { auditLog, users } from "@sluice/db";
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

// What an entry is about, by name, next to its id: the entity as it is now
// when it still exists, else the name the entry itself recorded (a deleted
// app's last entry still says which app it was). Only uuid ids are looked up,
// and CASE stops at the first match, so no other id is ever cast.
const UUID = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$";
const recorded = (field: string) => sql`coalesce(${auditLog.after} ->> ${field}, ${auditLog.before} ->> ${field})`;
const appNameOf = (appId: SQL) => sql`(select a.name from apps a where a.id = (${appId})::uuid)`;
const recordedAppId = sql`case when ${recorded("appId")} ~* ${UUID} then ${recorded("appId")} end`;
const entityName = sql<string | null>`case
  when ${auditLog.entityType} = 'token' then coalesce(${appNameOf(recordedAppId)}, ${recorded("appName")})
  when ${auditLog.entityType} = 'app_grant' then ${recorded("endpointPattern")} || coalesce(' for ' || ${appNameOf(recordedAppId)}, '')
  when ${auditLog.entityType} = 'api_key' then ${recorded("name")}
  when ${auditLog.entityId} is null or ${auditLog.entityId} !~* ${UUID} then null
  when ${auditLog.entityType} = 'api' then coalesce((select s.name || ' v' || s.version from streaming_apis s where s.id = ${auditLog.entityId}::uuid), ${recorded("name")})
  when ${auditLog.entityType} = 'app' then coalesce((select a.name from apps a where a.id = ${auditLog.entityId}::uuid), ${recorded("name")})
  when ${auditLog.entityType} = 'endpoint' then coalesce((select e.path from endpoints e where e.id = ${auditLog.entityId}::uuid), ${recorded("path")})
  when ${auditLog.entityType} = 'plan' then coalesce((select p.name from plans p where p.id = ${auditLog.entityId}::uuid), ${recorded("name")})
  when ${auditLog.entityType} = 'user' then coalesce((select u.email from users u where u.id = ${auditLog.entityId}::uuid), ${recorded("email")})
  when ${auditLog.entityType} = 'access_request' then ${appNameOf(recordedAppId)}
end`;

/**
 * The live console mints a ten-minute token each time someone clicks Try it
 * (lib/domain/console/mint-console-token.ts), for the one app of kind console:
 * useful history, but it would bury every other entry, so the page hides it
 * unless asked.
 */
const consoleMint = sql`(${auditLog.action} = 'token.mint' and ${recordedAppId} is not null
  and exists (select 1 from apps c where c.kind = 'console' and c.id = (${recordedAppId})::uuid))`;

/** Newest first, filtered, keyset-paginated (`cursor` is the nextCursor of the previous page, already decoded). */
export async function listAuditEntries(options: {
  db: DbOrTx;
  actor: AuthorizedActor<"editor">;
  filter: AuditFilter;
  limit: number;
  cursor?: (string | number)[];
  /** Leave out the live console's own token mints (the audit page's default; the API lists everything). */
  hideConsoleMints?: boolean;
}) {
  const { filter } = options;
  const where: (SQL | undefined)[] = [
    filter.entityType ? eq(auditLog.entityType, filter.entityType) : undefined,
    filter.entityId ? eq(auditLog.entityId, filter.entityId) : undefined,
    filter.action ? eq(auditLog.action, filter.action) : undefined,
    filter.actor ? ilike(auditLog.actor, likePattern(filter.actor)) : undefined,
    filter.from ? gte(auditLog.occurredAt, new Date(filter.from)) : undefined,
    filter.to ? lt(auditLog.occurredAt, new Date(filter.to)) : undefined,
    options.hideConsoleMints ? sql`not ${consoleMint}` : undefined,
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
      /** The acting user's display name now, when they still exist and have one. */
      actorName: sql<string | null>`nullif(${users.displayName}, '')`,
      action: auditLog.action,
      entityType: auditLog.entityType,
      entityId: auditLog.entityId,
      before: auditLog.before,
      after: auditLog.after,
      entityName,
      micros: occurredMicros,
    })
    .from(auditLog)
    .leftJoin(users, eq(users.id, auditLog.actorUserId))
    .where(and(...where))
    .orderBy(desc(auditLog.occurredAt), desc(auditLog.id))
    .limit(options.limit + 1);
  const page = pageOf(rows, options.limit, (r) => [r.micros, r.id]);
  return { items: page.items.map(({ micros: _micros, ...entry }) => entry), nextCursor: page.nextCursor };
}
