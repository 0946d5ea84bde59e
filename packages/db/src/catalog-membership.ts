// Which rows the catalog topic holds, defined once. The bridge's full republish
// (readCatalogRecords) publishes exactly these; the portal leaves a signing key
// out of its JWKS and tombstones it in the catalog exactly when the key stops
// being one of them (signingKeyInCatalog). Both rules read state columns
// (signing_keys.status, issued_tokens.expires_at and revoked_at), never the
// audit log.
import { and, asc, eq, gt, inArray, isNotNull, or, sql, type SQL } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type pg from "pg";
import {
  appLimits,
  appRecord,
  endpointRecord,
  revokedTokenRecord,
  signingKeyRecord,
  type CatalogRecord,
  type PlanGrant,
} from "./catalog-records.ts";
import * as schema from "./schema.ts";

const { appGrants, apps, endpoints, issuedTokens, plans, signingKeys, streamingApis } = schema;

/** Any Drizzle handle on PostgreSQL: the portal's pool or transaction, the bridge's client. */
// biome-ignore lint/suspicious/noExplicitAny: the handle's schema and result types do not matter to these queries.
type AnyPgDatabase = PgDatabase<PgQueryResultHKT, any, any>;

/**
 * readPlanGrants reads the grants under plans of the given apps (all apps when
 * appIds is undefined), grouped by app: what appLimits turns into each app
 * record's `limits`. The portal calls it for the apps a change touches, the
 * bridge's full republish for every app, so both write the same records.
 */
export async function readPlanGrants(db: AnyPgDatabase, appIds?: string[]): Promise<Map<string, PlanGrant[]>> {
  const out = new Map<string, PlanGrant[]>();
  if (appIds?.length === 0) return out;
  const rows = await db
    .select({
      appId: appGrants.appId,
      pattern: appGrants.endpointPattern,
      plan: {
        id: plans.id,
        name: plans.name,
        connections: plans.connections,
        subscriptionsPerConnection: plans.subscriptionsPerConnection,
        publishPerSecond: plans.publishPerSecond,
        deliveredPerSecond: plans.deliveredPerSecond,
        deliveredBytesPerSecond: plans.deliveredBytesPerSecond,
      },
    })
    .from(appGrants)
    .innerJoin(plans, eq(plans.id, appGrants.planId))
    .where(appIds ? inArray(appGrants.appId, appIds) : undefined);
  for (const { appId, ...grant } of rows) out.set(appId, [...(out.get(appId) ?? []), grant]);
  return out;
}

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
 * keys, apps (with the limits of their plans), endpoints, revocations, each
 * kind ordered by id.
 */
export async function readCatalogRecords(client: pg.PoolClient | pg.Client, now?: Date): Promise<CatalogRecord[]> {
  const db = drizzle(client, { schema, casing: "snake_case" });
  const keys = await db
    .select({ kid: signingKeys.kid, algorithm: signingKeys.algorithm, publicJwk: signingKeys.publicJwk, status: signingKeys.status })
    .from(signingKeys)
    .where(signingKeyInCatalog(now))
    .orderBy(asc(signingKeys.kid));
  const appRows = await db.select({ id: apps.id, name: apps.name, tokensNotBefore: apps.tokensNotBefore }).from(apps).orderBy(asc(apps.id));
  const planGrants = await readPlanGrants(db);
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
    ...appRows.map((app) => appRecord(app, appLimits(planGrants.get(app.id) ?? []))),
    ...endpointRows.map((r) => endpointRecord(r.endpoint, r.api)),
    ...revoked.map(revokedTokenRecord),
  ];
}
