// The current catalog, read from the tables in one consistent snapshot and
// built with the same record builders the portal uses for its outbox rows.
// (Plain SQL rather than Drizzle's query builder: the bridge would otherwise
// need its own drizzle-orm, which pnpm may resolve to a second, type-incompatible
// copy of the one @sluice/db uses.)
import type pg from "pg";
import { appRecord, endpointRecord, revokedTokenRecord, signingKeyRecord, type CatalogRecord, type Endpoint } from "@sluice/db";
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

type EndpointRow = Endpoint & { apiName: string; apiVersion: string };

export async function readSnapshot(pool: pg.Pool): Promise<CatalogSnapshot> {
  const client = await pool.connect();
  try {
    await client.query("begin isolation level repeatable read read only");
    const endpoints = await client.query<EndpointRow>(
      `select e.id, e.api_id as "apiId", e.path, e.topic, e.key, e.key_param as "keyParam", e.operations,
              e.payload_format as "payloadFormat", e.json_schema as "jsonSchema", e.description, e.examples,
              e.created_at as "createdAt", e.updated_at as "updatedAt", a.name as "apiName", a.version as "apiVersion"
         from endpoints e join streaming_apis a on a.id = e.api_id order by e.id`,
    );
    const apps = await client.query<{ id: string; name: string; tokensNotBefore: Date | null }>(
      `select id, name, tokens_not_before as "tokensNotBefore" from apps order by id`,
    );
    // A retired key stays while a token it signed can still be presented.
    const keys = await client.query<{ kid: string; algorithm: string; publicJwk: unknown; status: "active" | "retired" }>(
      `select kid, algorithm, public_jwk as "publicJwk", status from signing_keys k
        where status = 'active' or exists (select 1 from issued_tokens t where t.kid = k.kid and t.expires_at > now())
        order by kid`,
    );
    const revoked = await client.query<{ jti: string; appId: string; expiresAt: Date }>(
      `select jti, app_id as "appId", expires_at as "expiresAt" from issued_tokens
        where revoked_at is not null and expires_at > now() order by jti`,
    );
    const pending = await client.query<{ id: string; key: string }>(
      `select o.id::text as id, o.record_key as key from catalog_outbox o where o.published_at is null order by o.id`,
    );
    await client.query("commit");
    return {
      records: [
        ...keys.rows.map(signingKeyRecord),
        ...apps.rows.map(appRecord),
        ...endpoints.rows.map((e) => endpointRecord(e, { id: e.apiId, name: e.apiName, version: e.apiVersion })),
        ...revoked.rows.map(revokedTokenRecord),
      ],
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
