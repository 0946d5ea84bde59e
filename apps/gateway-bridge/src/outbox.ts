// The outbox table as the publisher sees it: pending rows in id order, marking
// rows done after Kafka acknowledged them, and clean-up of old published rows.
import type pg from "pg";

export interface OutboxRow {
  id: number;
  key: string;
  /** The JSON text of the value; null is a tombstone. */
  value: string | null;
}

/** The oldest pending rows, in id order (the order the portal wrote them). */
export async function readPending(pool: pg.Pool, limit: number): Promise<OutboxRow[]> {
  // record_value::text keeps the JSON exactly as stored. Order by the table's
  // bigint column, not the text alias "id" (which would sort "10" before "2").
  const { rows } = await pool.query<{ id: string; key: string; value: string | null }>(
    `select o.id::text as id, o.record_key as key, o.record_value::text as value
       from catalog_outbox o where o.published_at is null order by o.id limit $1`,
    [limit],
  );
  return rows.map((r) => ({ id: Number(r.id), key: r.key, value: r.value }));
}

export async function markPublished(pool: pg.Pool, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await pool.query(`update catalog_outbox set published_at = now() where id = any($1::bigint[]) and published_at is null`, [ids]);
}

export interface PendingStats {
  pending: number;
  /** Age of the oldest pending row in seconds; 0 when nothing is pending. */
  oldestAgeSeconds: number;
}

export async function pendingStats(pool: pg.Pool): Promise<PendingStats> {
  const { rows } = await pool.query<{ pending: string; age: number | null }>(
    `select count(*)::text as pending, extract(epoch from now() - min(created_at))::float8 as age
       from catalog_outbox where published_at is null`,
  );
  return { pending: Number(rows[0]?.pending ?? 0), oldestAgeSeconds: Math.max(0, rows[0]?.age ?? 0) };
}

/** Deletes published rows older than the retention; returns how many. */
export async function deletePublished(pool: pg.Pool, olderThanDays: number): Promise<number> {
  const result = await pool.query(
    `delete from catalog_outbox where published_at is not null and published_at < now() - make_interval(secs => $1)`,
    [olderThanDays * 86400],
  );
  return result.rowCount ?? 0;
}
