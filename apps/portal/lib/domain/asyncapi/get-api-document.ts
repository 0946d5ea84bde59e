import { endpoints, streamingApis } from "@sluice/db";
import { asc, eq } from "drizzle-orm";

import { buildAsyncApiDocument } from "../../asyncapi/build-document";
import type { AuthorizedActor } from "../../auth/actor";
import { gatewayPublicUrl } from "../../config";
import type { DbOrTx } from "../../db";
import { notFound } from "../../errors";

/** One Streaming API as an AsyncAPI document. Any signed-in user may read every API's docs. */
export async function getApiDocument(options: { db: DbOrTx; actor: AuthorizedActor; apiId: string; gatewayUrl?: string }) {
  const [api] = await options.db.select().from(streamingApis).where(eq(streamingApis.id, options.apiId));
  if (!api) throw notFound("The Streaming API");
  const rows = await options.db.select().from(endpoints).where(eq(endpoints.apiId, api.id)).orderBy(asc(endpoints.path));
  const document = buildAsyncApiDocument(api, rows, { gatewayUrl: options.gatewayUrl ?? gatewayPublicUrl() });
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
