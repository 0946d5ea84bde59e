// Folds one usage record into PostgreSQL: the idempotency row, the node row and
// the minute and hour buckets, all in ONE transaction. If the idempotency row
// (node, interval_start) already exists the record was counted before (a
// redelivery after a restart) and nothing else is written.
import type pg from "pg";
import { bucketOf, HOUR_MS, MINUTE_MS, type UsageRecord } from "./usage-record.ts";

/**
 * Every aggregation transaction takes this lock first. Several bridges share the
 * topic's partitions, and the hour buckets' gauges read the minute rows other
 * nodes wrote: serialised, each transaction sees every earlier one committed, so
 * the hourly peak is the peak of complete per-minute sums. Records are few (one
 * per node per interval), so the lock costs nothing that matters.
 */
const AGGREGATION_LOCK = "sluice.usage-aggregation";

export type CountResult = "counted" | "duplicate";

const iso = (ms: number) => new Date(ms).toISOString();

export async function countRecord(pool: pg.Pool, record: UsageRecord): Promise<CountResult> {
  const client = await pool.connect();
  try {
    await client.query("begin");
    try {
      const result = await countInTransaction(client, record);
      await client.query(result === "counted" ? "commit" : "rollback");
      return result;
    } catch (err) {
      await client.query("rollback").catch(() => {});
      throw err;
    }
  } finally {
    client.release();
  }
}

async function countInTransaction(client: pg.PoolClient, r: UsageRecord): Promise<CountResult> {
  await client.query("select pg_advisory_xact_lock(hashtext($1))", [AGGREGATION_LOCK]);
  const fresh = await client.query(
    `insert into usage_intervals (node, interval_start, interval_end) values ($1, $2, $3)
     on conflict (node, interval_start) do nothing`,
    [r.node, iso(r.interval_start), iso(r.interval_end)],
  );
  if (fresh.rowCount === 0) return "duplicate";

  // The node row follows the node's newest record; an older one arriving late
  // (another partition's backlog cannot hold it: a node's records share a key)
  // is still counted in the buckets but does not move the node back in time.
  await client.query(
    `insert into usage_nodes as n (node, version, started_at, last_interval_start, last_seen_at, interval_ms, connections, catalog_offset_lag, final, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, now())
     on conflict (node) do update set
       version = excluded.version, started_at = excluded.started_at, last_interval_start = excluded.last_interval_start,
       last_seen_at = excluded.last_seen_at, interval_ms = excluded.interval_ms, connections = excluded.connections,
       catalog_offset_lag = excluded.catalog_offset_lag, final = excluded.final, updated_at = now()
     where excluded.last_seen_at >= n.last_seen_at`,
    [
      r.node,
      r.version,
      iso(r.started_at),
      iso(r.interval_start),
      iso(r.interval_end),
      r.interval_end - r.interval_start,
      r.connections,
      r.catalog_offset_lag,
      r.final,
    ],
  );
  if (r.apps.length === 0) return "counted";

  const minute = iso(bucketOf(r.interval_start, MINUTE_MS));
  const hour = iso(bucketOf(r.interval_start, HOUR_MS));

  // Apps. Gauges: the node's peak in the minute; counters: summed. The hour's
  // gauge is the peak over its minutes of the sum over nodes, read back after
  // this node's minute row is in.
  const apps = {
    ids: r.apps.map((a) => a.app),
    connections: r.apps.map((a) => a.connections),
    refused: r.apps.map((a) => a.refused.connections),
  };
  await client.query(
    `insert into usage_app_minutes as m (bucket_start, app_id, node, connections, refused_connections)
     select $1, a.app_id, $2, a.connections, a.refused from unnest($3::uuid[], $4::int[], $5::bigint[]) as a(app_id, connections, refused)
     on conflict (bucket_start, app_id, node) do update set
       connections = greatest(m.connections, excluded.connections),
       refused_connections = m.refused_connections + excluded.refused_connections`,
    [minute, r.node, apps.ids, apps.connections, apps.refused],
  );
  await client.query(
    `insert into usage_app_hours as h (bucket_start, app_id, connections, refused_connections)
     select $1, a.app_id,
            (select coalesce(sum(m.connections), 0) from usage_app_minutes m where m.bucket_start = $2 and m.app_id = a.app_id),
            a.refused
       from unnest($3::uuid[], $4::bigint[]) as a(app_id, refused)
     on conflict (bucket_start, app_id) do update set
       connections = greatest(h.connections, excluded.connections),
       refused_connections = h.refused_connections + excluded.refused_connections`,
    [hour, minute, apps.ids, apps.refused],
  );

  const rows = r.apps.flatMap((a) => a.endpoints.map((e) => ({ app: a.app, ...e })));
  if (rows.length === 0) return "counted";
  const col = <T>(pick: (row: (typeof rows)[number]) => T) => rows.map(pick);
  const endpointArrays = [
    col((e) => e.app),
    col((e) => e.endpoint),
    col((e) => e.path),
    col((e) => e.subscriptions),
    col((e) => e.delivered),
    col((e) => e.delivered_bytes),
    col((e) => e.published),
    col((e) => e.published_bytes),
    col((e) => e.errors),
    col((e) => e.refused.subscriptions),
    col((e) => e.refused.publish),
    col((e) => e.refused.delivered),
  ];
  const unnest = `unnest($3::uuid[], $4::uuid[], $5::text[], $6::int[], $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[],
                         $11::bigint[], $12::bigint[], $13::bigint[], $14::bigint[])
                  as e(app_id, endpoint_id, path, subscriptions, delivered, delivered_bytes, published, published_bytes,
                       errors, refused_subscriptions, refused_publish, refused_delivered)`;
  const counters = (t: string) =>
    [
      "delivered",
      "delivered_bytes",
      "published",
      "published_bytes",
      "errors",
      "refused_subscriptions",
      "refused_publish",
      "refused_delivered",
    ]
      .map((c) => `${c} = ${t}.${c} + excluded.${c}`)
      .join(", ");
  await client.query(
    `insert into usage_endpoint_minutes as m (bucket_start, node, app_id, endpoint_id, path, subscriptions, delivered, delivered_bytes,
                                              published, published_bytes, errors, refused_subscriptions, refused_publish, refused_delivered)
     select $1, $2, e.* from ${unnest}
     on conflict (bucket_start, app_id, endpoint_id, node) do update set
       path = excluded.path, subscriptions = greatest(m.subscriptions, excluded.subscriptions), ${counters("m")}`,
    [minute, r.node, ...endpointArrays],
  );
  await client.query(
    `insert into usage_endpoint_hours as h (bucket_start, app_id, endpoint_id, path, subscriptions, delivered, delivered_bytes,
                                            published, published_bytes, errors, refused_subscriptions, refused_publish, refused_delivered)
     select $1, e.app_id, e.endpoint_id, e.path,
            (select coalesce(sum(m.subscriptions), 0) from usage_endpoint_minutes m
              where m.bucket_start = $2 and m.app_id = e.app_id and m.endpoint_id = e.endpoint_id),
            e.delivered, e.delivered_bytes, e.published, e.published_bytes, e.errors,
            e.refused_subscriptions, e.refused_publish, e.refused_delivered
       from ${unnest}
     on conflict (bucket_start, app_id, endpoint_id) do update set
       path = excluded.path, subscriptions = greatest(h.subscriptions, excluded.subscriptions), ${counters("h")}`,
    [hour, minute, ...endpointArrays],
  );
  return "counted";
}

/** Retention of the usage tables (contract: minutes and idempotency 7 days, hours 90 days). */
export const USAGE_RETENTION = { minuteDays: 7, hourDays: 90 } as const;

/**
 * Deletes buckets, idempotency rows and node rows past their retention. Node
 * rows go with the minute buckets: a node silent for 7 days is long gone.
 * Returns the number of rows deleted.
 */
export async function deleteExpiredUsage(pool: pg.Pool, now = Date.now()): Promise<number> {
  const minuteCut = iso(now - USAGE_RETENTION.minuteDays * 86_400_000);
  const hourCut = iso(now - USAGE_RETENTION.hourDays * 86_400_000);
  const statements: Array<[string, string]> = [
    ["delete from usage_endpoint_minutes where bucket_start < $1", minuteCut],
    ["delete from usage_app_minutes where bucket_start < $1", minuteCut],
    ["delete from usage_intervals where interval_start < $1", minuteCut],
    ["delete from usage_nodes where last_seen_at < $1", minuteCut],
    ["delete from usage_endpoint_hours where bucket_start < $1", hourCut],
    ["delete from usage_app_hours where bucket_start < $1", hourCut],
  ];
  let deleted = 0;
  for (const [sql, cut] of statements) deleted += (await pool.query(sql, [cut])).rowCount ?? 0;
  return deleted;
}
