// An app's tokens (metadata only), newest first, keyset-paginated on (issued_at, jti).
import { issuedTokens, type IssuedToken } from "@sluice/db";
import { and, desc, eq, lt, or, sql, type SQL } from "drizzle-orm";
import { z } from "zod";

import type { Actor } from "../../auth/actor";
import type { DbOrTx } from "../../db";
import { decodeCursor, pageOf } from "../../pagination";
import { invalid } from "../../errors";
import { loadApp } from "../apps/load-app";

export type TokenStatus = "active" | "expired" | "revoked";

export function tokenStatus(token: Pick<IssuedToken, "revokedAt" | "expiresAt">, now = new Date()): TokenStatus {
  if (token.revokedAt) return "revoked";
  return token.expiresAt <= now ? "expired" : "active";
}

export async function listTokens(options: { db: DbOrTx; actor: Actor; appId: string; limit: number; cursor?: string }) {
  await loadApp(options);
  const filters: (SQL | undefined)[] = [eq(issuedTokens.appId, options.appId)];
  const cursor = decodeCursor(options.cursor, 2);
  if (cursor) {
    const [issuedAt, jti] = cursor as [string, string];
    if (Number.isNaN(Date.parse(issuedAt)) || !z.uuid().safeParse(jti).success)
      throw invalid("cursor", "is not a cursor from this API; use the nextCursor of the previous page");
    const at = sql`${issuedAt}::timestamptz`;
    filters.push(or(lt(issuedTokens.issuedAt, at), and(eq(issuedTokens.issuedAt, at), lt(issuedTokens.jti, sql`${jti}::uuid`))));
  }
  const rows = await options.db
    .select()
    .from(issuedTokens)
    .where(and(...filters))
    .orderBy(desc(issuedTokens.issuedAt), desc(issuedTokens.jti))
    .limit(options.limit + 1);
  const now = new Date();
  const page = pageOf(rows, options.limit, (r) => [r.issuedAt.toISOString(), r.jti]);
  return { ...page, items: page.items.map((r) => ({ ...r, status: tokenStatus(r, now) })) };
}
