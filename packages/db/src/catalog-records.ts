// The records of `__sluice_catalog`, exactly as packages/protocol/CATALOG.md
// defines them. The portal writes them to the outbox and the bridge rebuilds the
// full catalog from the same builders at its start, so both always agree; the
// gateway reads them. Field names are the wire format's (snake_case).
import { PLAN_LIMITS, type App, type Endpoint, type Plan, type SigningKey, type StreamingApi } from "./schema.ts";

/** The record kinds of CATALOG.md: a record key is `<kind>/<id>`. */
export const CATALOG_KINDS = ["endpoint", "key", "app", "revoked"] as const;

export interface CatalogRecord {
  key: string;
  /** null is a tombstone: the entry is deleted. */
  value: Record<string, unknown> | null;
}

const seconds = (d: Date | null | undefined) => (d ? Math.floor(d.getTime() / 1000) : null);

export function endpointRecord(endpoint: Endpoint, api: Pick<StreamingApi, "id" | "name" | "version">): CatalogRecord {
  return {
    key: `endpoint/${endpoint.id}`,
    value: {
      v: 1,
      id: endpoint.id,
      path: endpoint.path,
      topic: endpoint.topic,
      key: endpoint.key,
      key_param: endpoint.keyParam,
      operations: endpoint.operations,
      payload_format: endpoint.payloadFormat,
      json_schema: endpoint.jsonSchema ?? null,
      // Registry formats only: the subject as the portal computed it from its strategy; version null is the latest.
      value_schema: endpoint.valueSubject ? { subject: endpoint.valueSubject, version: endpoint.valueSchemaVersion ?? null } : null,
      // Any format: record keys written by a registry serializer; null is plain keys. The same shape as value_schema.
      key_schema: endpoint.keySubject ? { subject: endpoint.keySubject, version: endpoint.keySchemaVersion ?? null } : null,
      api: { id: api.id, name: api.name, version: api.version },
    },
  };
}

export const endpointTombstone = (endpointId: string): CatalogRecord => ({ key: `endpoint/${endpointId}`, value: null });

export function signingKeyRecord(key: Pick<SigningKey, "kid" | "algorithm" | "publicJwk" | "status">): CatalogRecord {
  return { key: `key/${key.kid}`, value: { v: 1, kid: key.kid, alg: key.algorithm, jwk: key.publicJwk, status: key.status } };
}

export const signingKeyTombstone = (kid: string): CatalogRecord => ({ key: `key/${kid}`, value: null });

/** What an app record needs of a plan. */
export type PlanLimits = Pick<
  Plan,
  "id" | "name" | "connections" | "subscriptionsPerConnection" | "publishPerSecond" | "deliveredPerSecond" | "deliveredBytesPerSecond"
>;

/** One grant of an app under a plan: the pattern goes into the plan's entry of the app record. */
export interface PlanGrant {
  pattern: string;
  plan: PlanLimits;
}

/** One entry of an app record's `limits` (CATALOG.md, app records). */
export interface AppLimit {
  plan: string;
  name: string;
  patterns: string[];
  connections: number | null;
  subscriptions_per_connection: number | null;
  publish_per_second: number | null;
  delivered_per_second: number | null;
  delivered_bytes_per_second: number | null;
}

/**
 * appLimits turns an app's grants under plans into its record's `limits`: one
 * entry per plan with the patterns of the app's grants under it (sorted), most
 * generous plan first, because the gateway lets the first entry whose pattern
 * matches a path govern it. "More generous" compares the limits in PLAN_LIMITS
 * order (connections, subscriptions per connection, publishes, delivered
 * messages, delivered bytes per second), the first that differs deciding, with
 * null (no limit) above every number; equal plans go by name, then id, so the
 * record is the same whoever builds it.
 */
export function appLimits(grants: PlanGrant[]): AppLimit[] {
  const byPlan = new Map<string, { plan: PlanLimits; patterns: string[] }>();
  for (const g of grants) {
    const entry = byPlan.get(g.plan.id) ?? { plan: g.plan, patterns: [] };
    entry.patterns.push(g.pattern);
    byPlan.set(g.plan.id, entry);
  }
  return [...byPlan.values()]
    .sort((a, b) => compareGenerosity(b.plan, a.plan) || compareText(a.plan.name, b.plan.name) || compareText(a.plan.id, b.plan.id))
    .map(({ plan, patterns }) => ({
      plan: plan.id,
      name: plan.name,
      patterns: patterns.sort(compareText),
      connections: plan.connections,
      subscriptions_per_connection: plan.subscriptionsPerConnection,
      publish_per_second: plan.publishPerSecond,
      delivered_per_second: plan.deliveredPerSecond,
      delivered_bytes_per_second: plan.deliveredBytesPerSecond,
    }));
}

/** Negative when plan a is less generous than b (null, no limit, is the most generous). */
export function compareGenerosity(a: PlanLimits, b: PlanLimits): number {
  for (const limit of PLAN_LIMITS) {
    const x = a[limit] ?? Number.POSITIVE_INFINITY;
    const y = b[limit] ?? Number.POSITIVE_INFINITY;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** Code-point order, not the locale's: the portal and the bridge must sort alike on any machine. */
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The app record; `limits` (appLimits) only when the app has grants under
 * plans, so a plan-less app's record is what it was before plans existed.
 */
export function appRecord(app: Pick<App, "id" | "name" | "tokensNotBefore">, limits: AppLimit[] = []): CatalogRecord {
  const value: Record<string, unknown> = { v: 1, id: app.id, name: app.name, tokens_not_before: seconds(app.tokensNotBefore) };
  if (limits.length) value.limits = limits;
  return { key: `app/${app.id}`, value };
}

export const appTombstone = (appId: string): CatalogRecord => ({ key: `app/${appId}`, value: null });

export function revokedTokenRecord(token: { jti: string; appId: string; expiresAt: Date }): CatalogRecord {
  return { key: `revoked/${token.jti}`, value: { v: 1, jti: token.jti, app: token.appId, expires_at: seconds(token.expiresAt) } };
}
