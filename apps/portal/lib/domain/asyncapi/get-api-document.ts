import { endpoints, streamingApis } from "@sluice/db";
import { asc, eq } from "drizzle-orm";

import { buildAsyncApiDocument } from "../../asyncapi/build-document";
import { registrySchemasFor } from "../../asyncapi/registry-schemas";
import type { AuthorizedActor } from "../../auth/actor";
import { gatewayPublicUrls } from "../../config";
import type { DbOrTx } from "../../db";
import { notFound } from "../../errors";
import { portalRegistry, type SchemaRegistry } from "../../registry/registry";

/**
 * One Streaming API as an AsyncAPI document. Any signed-in user may read every
 * API's docs. Registry-backed endpoints get their schema from the registry; a
 * registry that cannot answer leaves those payloads undescribed (and logged),
 * never the document unbuilt.
 */
export async function getApiDocument(options: {
  db: DbOrTx;
  actor: AuthorizedActor;
  apiId: string;
  gatewayUrl?: string;
  /** The registry; undefined: the portal's (SCHEMA_REGISTRY_URL). */
  registry?: SchemaRegistry | null;
}) {
  const [api] = await options.db.select().from(streamingApis).where(eq(streamingApis.id, options.apiId));
  if (!api) throw notFound("The Streaming API");
  const rows = await options.db.select().from(endpoints).where(eq(endpoints.apiId, api.id)).orderBy(asc(endpoints.path));
  let registry = options.registry ?? null;
  let noRegistryReason: string | undefined;
  if (options.registry === undefined && rows.some((r) => r.valueSubject || r.keySubject)) {
    try {
      registry = portalRegistry();
    } catch (err) {
      noRegistryReason = (err as Error).message;
      console.warn(`AsyncAPI document: ${noRegistryReason}`);
    }
  }
  const [registrySchemas, registryKeySchemas] = await Promise.all([
    registrySchemasFor({ endpoints: rows, registry, noRegistryReason }),
    registrySchemasFor({ endpoints: rows, registry, noRegistryReason, role: "key" }),
  ]);
  const document = buildAsyncApiDocument(api, rows, {
    gatewayUrl: options.gatewayUrl ?? gatewayPublicUrls(),
    registrySchemas,
    registryKeySchemas,
  });
  return { api, endpointCount: rows.length, document };
}

/** A download's file name: `market-data-1.2.0.asyncapi.yaml`. */
export function documentFileName(api: { name: string; version: string }, extension: "json" | "yaml"): string {
  const slug =
    api.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "") || "api";
  return `${slug}-${api.version.replace(/[^A-Za-z0-9._-]/g, "-")}.asyncapi.${extension}`;
}
