// The traffic of one scope over one range: a point per bucket (rates per second
// for messages and bytes, gauges as the bucket's peak, counts for errors and
// refusals), the range's totals, and the top apps and endpoints in the scope.
// Reads the bridge's usage tables (packages/db, usage_*); the caller has already
// passed the scope's access rule (usage-scope.ts).
import { sql, type SQL } from "drizzle-orm";

import type { DbOrTx } from "../../db";
import type { UsageScope } from "./usage-scope";
import { usageWindow, type UsageRange, type UsageWindow } from "./usage-range";

export interface UsagePoint {
  time: Date;
  deliveredPerSecond: number;
  deliveredBytesPerSecond: number;
  publishedPerSecond: number;
  publishedBytesPerSecond: number;
  /** Peak subscriptions in the bucket (sum over nodes of each node's peak). */
  subscriptions: number;
  /** Peak connections; null where connections cannot be attributed (an API or an endpoint: a connection belongs to an app). */
  connections: number | null;
  errors: number;
  refusedConnections: number | null;
  refusedSubscriptions: number;
  refusedPublish: number;
  refusedDelivered: number;
}

export interface UsageTotals {
  delivered: number;
  deliveredBytes: number;
  published: number;
  publishedBytes: number;
  errors: number;
  refused: number;
}

export interface TopApp extends UsageTotals {
  appId: string;
  /** null when the app no longer exists. */
  name: string | null;
}

export interface TopEndpoint extends UsageTotals {
  endpointId: string;
  path: string;
  /** null when the endpoint no longer exists. */
  apiId: string | null;
  apiName: string | null;
}

export interface Usage {
  window: UsageWindow;
  points: UsagePoint[];
  totals: UsageTotals;
  topApps: TopApp[];
  topEndpoints: TopEndpoint[];
}

const TOP_LIMIT = 10;

const tables = (window: UsageWindow) =>
  window.granularity === "minute"
    ? { endpoint: sql.raw("usage_endpoint_minutes"), app: sql.raw("usage_app_minutes") }
    : { endpoint: sql.raw("usage_endpoint_hours"), app: sql.raw("usage_app_hours") };

/** The scope as a condition on endpoint usage rows (alias u). */
function endpointFilter(scope: UsageScope): SQL {
  switch (scope.kind) {
    case "all":
      return sql`true`;
    case "api":
      return sql`u.endpoint_id in (select id from endpoints where api_id = ${scope.apiId})`;
    case "endpoint":
      return sql`u.endpoint_id = ${scope.endpointId}`;
    case "app":
      return sql`u.app_id = ${scope.appId}`;
  }
}

const n = (v: unknown) => Number(v ?? 0);

const totalsColumns = sql`coalesce(sum(u.delivered), 0) as delivered, coalesce(sum(u.delivered_bytes), 0) as delivered_bytes,
  coalesce(sum(u.published), 0) as published, coalesce(sum(u.published_bytes), 0) as published_bytes,
  coalesce(sum(u.errors), 0) as errors,
  coalesce(sum(u.refused_subscriptions + u.refused_publish + u.refused_delivered), 0) as refused`;

const toTotals = (r: Record<string, unknown>): UsageTotals => ({
  delivered: n(r.delivered),
  deliveredBytes: n(r.delivered_bytes),
  published: n(r.published),
  publishedBytes: n(r.published_bytes),
  errors: n(r.errors),
  refused: n(r.refused),
});

export async function getUsage(options: { db: DbOrTx; scope: UsageScope; range: UsageRange; now?: number }): Promise<Usage> {
  const { db, scope } = options;
  const window = usageWindow(options.range, options.now);
  const t = tables(window);
  const inRange = sql`u.bucket_start between ${window.from.toISOString()} and ${window.to.toISOString()}`;
  const where = sql`${inRange} and ${endpointFilter(scope)}`;

  const endpointRows = await db.execute(sql`
    select (extract(epoch from u.bucket_start) * 1000)::bigint as t, ${totalsColumns},
           coalesce(sum(u.subscriptions), 0) as subscriptions,
           coalesce(sum(u.refused_subscriptions), 0) as refused_subscriptions,
           coalesce(sum(u.refused_publish), 0) as refused_publish,
           coalesce(sum(u.refused_delivered), 0) as refused_delivered
      from ${t.endpoint} u where ${where} group by u.bucket_start`);
  // Connections belong to apps: only the app and the all-traffic scopes have them.
  const withConnections = scope.kind === "app" || scope.kind === "all";
  const appRows = withConnections
    ? await db.execute(sql`
        select (extract(epoch from u.bucket_start) * 1000)::bigint as t, coalesce(sum(u.connections), 0) as connections,
               coalesce(sum(u.refused_connections), 0) as refused_connections
          from ${t.app} u where ${inRange} ${scope.kind === "app" ? sql`and u.app_id = ${scope.appId}` : sql``}
         group by u.bucket_start`)
    : { rows: [] };

  const byTime = new Map(endpointRows.rows.map((r) => [n(r.t), r]));
  const appByTime = new Map(appRows.rows.map((r) => [n(r.t), r]));
  const perSecond = (v: unknown) => n(v) / window.bucketSeconds;
  const points = window.buckets.map((time): UsagePoint => {
    const e = byTime.get(time.getTime()) ?? {};
    const a = appByTime.get(time.getTime()) ?? {};
    return {
      time,
      deliveredPerSecond: perSecond(e.delivered),
      deliveredBytesPerSecond: perSecond(e.delivered_bytes),
      publishedPerSecond: perSecond(e.published),
      publishedBytesPerSecond: perSecond(e.published_bytes),
      subscriptions: n(e.subscriptions),
      connections: withConnections ? n(a.connections) : null,
      errors: n(e.errors),
      refusedConnections: withConnections ? n(a.refused_connections) : null,
      refusedSubscriptions: n(e.refused_subscriptions),
      refusedPublish: n(e.refused_publish),
      refusedDelivered: n(e.refused_delivered),
    };
  });

  const [totalsRow] = (await db.execute(sql`select ${totalsColumns} from ${t.endpoint} u where ${where}`)).rows;
  const totals = toTotals(totalsRow ?? {});

  const busiest = sql`order by sum(u.delivered) + sum(u.published) + sum(u.refused_subscriptions + u.refused_publish + u.refused_delivered) desc`;
  const topApps =
    scope.kind === "app"
      ? []
      : (
          await db.execute(sql`
            select u.app_id, max(a.name) as name, ${totalsColumns}
              from ${t.endpoint} u left join apps a on a.id = u.app_id
             where ${where} group by u.app_id ${busiest}, u.app_id limit ${TOP_LIMIT}`)
        ).rows.map((r) => ({ appId: String(r.app_id), name: (r.name as string | null) ?? null, ...toTotals(r) }));
  const topEndpoints =
    scope.kind === "endpoint"
      ? []
      : (
          await db.execute(sql`
            select u.endpoint_id, max(u.path) as path, max(s.id::text) as api_id, max(s.name) as api_name, ${totalsColumns}
              from ${t.endpoint} u left join endpoints e on e.id = u.endpoint_id left join streaming_apis s on s.id = e.api_id
             where ${where} group by u.endpoint_id ${busiest}, u.endpoint_id limit ${TOP_LIMIT}`)
        ).rows.map((r) => ({
          endpointId: String(r.endpoint_id),
          path: String(r.path),
          apiId: (r.api_id as string | null) ?? null,
          apiName: (r.api_name as string | null) ?? null,
          ...toTotals(r),
        }));

  return { window, points, totals, topApps, topEndpoints };
}
