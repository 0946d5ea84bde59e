// The records of `__sluice_catalog`, exactly as packages/protocol/CATALOG.md
// defines them. The portal writes them to the outbox and the bridge rebuilds the
// full catalog from the same builders at its start, so both always agree; the
// gateway reads them. Field names are the wire format's (snake_case).
import type { App, Endpoint, SigningKey, StreamingApi } from "./schema.ts";

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

export function appRecord(app: Pick<App, "id" | "name" | "tokensNotBefore">): CatalogRecord {
  return { key: `app/${app.id}`, value: { v: 1, id: app.id, name: app.name, tokens_not_before: seconds(app.tokensNotBefore) } };
}

export const appTombstone = (appId: string): CatalogRecord => ({ key: `app/${appId}`, value: null });

export function revokedTokenRecord(token: { jti: string; appId: string; expiresAt: Date }): CatalogRecord {
  return { key: `revoked/${token.jti}`, value: { v: 1, jti: token.jti, app: token.appId, expires_at: seconds(token.expiresAt) } };
}
