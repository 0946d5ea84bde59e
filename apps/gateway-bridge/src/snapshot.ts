// The current catalog, read from the tables in one consistent snapshot by
// @sluice/db's readCatalogRecords: the same rule for which keys and revocations
// belong in the catalog as the portal's key expiry, and the same record builders
// as the portal's outbox rows.
import type pg from "pg";
import { readCatalogRecords, type CatalogRecord } from "@sluice/db";
import { isKnownKind } from "./catalog-diff.ts";

export interface CatalogSnapshot {
  records: CatalogRecord[];
  /**
   * Pending outbox rows visible in the snapshot, whose effect the snapshot
   * therefore contains: once the snapshot is on the topic they are done.
   * Deliberately a list of ids, not "id <= max id": an identity id is taken at
   * insert, not at commit, so a row with a lower id can commit after the
   * snapshot; "id <= max" would mark it published without ever sending it.
   */
  coveredOutboxIds: number[];
}

export async function readSnapshot(pool: pg.Pool): Promise<CatalogSnapshot> {
  const client = await pool.connect();
  try {
    await client.query("begin isolation level repeatable read read only");
    const records = await readCatalogRecords(client);
    const pending = await client.query<{ id: string; key: string }>(
      `select o.id::text as id, o.record_key as key from catalog_outbox o where o.published_at is null order by o.id`,
    );
    await client.query("commit");
    return {
      records,
      // A row of a kind the snapshot does not model stays pending: the normal
      // drain publishes it as written.
      coveredOutboxIds: pending.rows.filter((p) => isKnownKind(p.key)).map((p) => Number(p.id)),
    };
  } catch (err) {
    await client.query("rollback").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
