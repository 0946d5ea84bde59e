// What the portal shows and the API returns for a Streaming API: the row, its
// owner's public details and how many endpoints it has.
import { endpoints, streamingApis, users } from "@sluice/db";
import { eq, sql } from "drizzle-orm";

import type { DbOrTx } from "../../db";

export const apiViewColumns = {
  id: streamingApis.id,
  name: streamingApis.name,
  version: streamingApis.version,
  description: streamingApis.description,
  tags: streamingApis.tags,
  ownerId: streamingApis.ownerId,
  ownerEmail: users.email,
  ownerDisplayName: users.displayName,
  endpointCount: sql<number>`(select count(*)::int from ${endpoints} where ${endpoints.apiId} = ${streamingApis.id})`.as("endpoint_count"),
  createdAt: streamingApis.createdAt,
  updatedAt: streamingApis.updatedAt,
};

type Row = {
  id: string;
  name: string;
  version: string;
  description: string;
  tags: string[];
  ownerId: string | null;
  ownerEmail: string | null;
  ownerDisplayName: string | null;
  endpointCount: number;
  createdAt: Date;
  updatedAt: Date;
};

export function toApiView(row: Row) {
  const { ownerEmail, ownerDisplayName, ...rest } = row;
  return {
    ...rest,
    owner: row.ownerId && ownerEmail !== null ? { id: row.ownerId, email: ownerEmail, displayName: ownerDisplayName ?? "" } : null,
  };
}

export type ApiView = ReturnType<typeof toApiView>;

export function selectApiViews(db: DbOrTx) {
  return db.select(apiViewColumns).from(streamingApis).leftJoin(users, eq(users.id, streamingApis.ownerId));
}
