// Which rows the catalog topic holds, defined once. The bridge's full republish
// (readCatalogRecords) publishes exactly these; the portal leaves a signing key
// out of its JWKS and tombstones it in the catalog exactly when the key stops
// being one of them (signingKeyInCatalog). Both rules read state columns
// (signing_keys.status, issued_tokens.expires_at and revoked_at), never the
// audit log.
import { and, asc, eq, gt, isNotNull, or, sql, type SQL } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import type pg from "pg";
import { appRecord, endpointRecord, revokedTokenRecord, signingKeyRecord, type CatalogRecord } from "./catalog-records.ts";
import * as schema from "./schema.ts";

const { apps, endpoints, issuedTokens, signingKeys, streamingApis } = schema;

/** The instant a rule is evaluated at: the caller's, else the database's now() (its transaction's start). */
const instant = (now?: Date): Date | SQL => now ?? sql`now()`;

/**
 * signingKeyInCatalog is the SQL condition (on signing_keys) for a key that
 * belongs in the catalog and the JWKS: the active key, and a retired key while a
 * token it signed has not expired (that token can still be presented).
 */
export function signingKeyInCatalog(now?: Date): SQL {
  const unexpiredToken = and(eq(issuedTokens.kid, signingKeys.kid), gt(issuedTokens.expiresAt, instant(now)));
  return or(eq(signingKeys.status, "active"), sql`exists (select 1 from ${issuedTokens} where ${unexpiredToken})`)!;
}

/**
 * revocationInCatalog is the SQL condition (on issued_tokens) for a revocation
 * that belongs in the catalog: a revoked token that has not expired. After its
 * expiry the token is rejected anyway, and the republish tombstones the entry.
 */
export function revocationInCatalog(now?: Date): SQL {
  return and(isNotNull(issuedTokens.revokedAt), gt(issuedTokens.expiresAt, instant(now)))!;
}

/**
 * readCatalogRecords reads the whole current catalog through client, in the
 * client's transaction if it has one (the bridge reads it in one repeatable-read
 * snapshot), as the records the portal writes one change at a time: signing
 * keys, apps, endpoints, revocations, each kind ordered by id.
 */
export async function readCatalogRecords(client: pg.PoolClient | pg.Client, now?: Date): Promise<CatalogRecord[]> {
  const db = drizzle(client, { schema, casing: "snake_case" });
  const keys = await db
    .select({ kid: signingKeys.kid, algorithm: signingKeys.algorithm, publicJwk: signingKeys.publicJwk, status: signingKeys.status })
    .from(signingKeys)
    .where(signingKeyInCatalog(now))
    .orderBy(asc(signingKeys.kid));
  const appRows = await db.select({ id: apps.id, name: apps.name, tokensNotBefore: apps.tokensNotBefore }).from(apps).orderBy(asc(apps.id));
  const endpointRows = await db
    .select({ endpoint: endpoints, api: { id: streamingApis.id, name: streamingApis.name, version: streamingApis.version } })
    .from(endpoints)
    .innerJoin(streamingApis, eq(streamingApis.id, endpoints.apiId))
    .orderBy(asc(endpoints.id));
  const revoked = await db
    .select({ jti: issuedTokens.jti, appId: issuedTokens.appId, expiresAt: issuedTokens.expiresAt })
    .from(issuedTokens)
    .where(revocationInCatalog(now))
    .orderBy(asc(issuedTokens.jti));
  return [
    ...keys.map(signingKeyRecord),
    ...appRows.map(appRecord),
    ...endpointRows.map((r) => endpointRecord(r.endpoint, r.api)),
    ...revoked.map(revokedTokenRecord),
  ];
}
