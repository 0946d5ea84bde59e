// Viewers see their own apps; editors and admins see all. Owners come with
// their e-mail and display name, so pages show a person rather than an id. Sorted by name, with
// keyset pagination on (name, id) and an optional name/description search.
import { apps, users } from "@sluice/db";
import { and, asc, eq, gt, ilike, or, sql, type SQL } from "drizzle-orm";

import { hasRole, type Actor } from "../../auth/actor";
import type { DbOrTx } from "../../db";
import { invalid } from "../../errors";
import { decodeCursor, pageOf } from "../../pagination";
import { likePattern } from "../like-pattern";

export const appColumns = {
  id: apps.id,
  name: apps.name,
  description: apps.description,
  ownerId: apps.ownerId,
  ownerEmail: users.email,
  ownerName: sql<string | null>`nullif(${users.displayName}, '')`,
  tokensNotBefore: apps.tokensNotBefore,
  kind: apps.kind,
  createdAt: apps.createdAt,
  updatedAt: apps.updatedAt,
};

export async function listApps(options: {
  db: DbOrTx;
  actor: Actor;
  q?: string;
  limit: number;
  cursor?: string;
  /** Only the caller's own standard apps, whatever their role (the apps they may ask access for in the portal). */
  ownOnly?: boolean;
  /** Only apps of this kind (the Apps page lists the console's app apart from the others). */
  kind?: "standard" | "console";
}) {
  const filters: (SQL | undefined)[] = [];
  if (options.ownOnly || !hasRole(options.actor, "editor")) filters.push(eq(apps.ownerId, options.actor.userId));
  if (options.ownOnly) filters.push(eq(apps.kind, "standard"));
  if (options.kind) filters.push(eq(apps.kind, options.kind));
  const q = options.q?.trim();
  if (q) {
    const like = likePattern(q);
    filters.push(or(ilike(apps.name, like), ilike(apps.description, like)));
  }
  const cursor = decodeCursor(options.cursor, 2);
  if (cursor) {
    const [name, id] = cursor as [string, string];
    if (typeof name !== "string" || !/^[0-9a-f-]{36}$/i.test(String(id)))
      throw invalid("cursor", "is not a cursor from this API; use the nextCursor of the previous page");
    filters.push(or(gt(apps.name, name), and(eq(apps.name, name), gt(apps.id, sql`${id}::uuid`))));
  }
  const rows = await options.db
    .select(appColumns)
    .from(apps)
    .leftJoin(users, eq(users.id, apps.ownerId))
    .where(and(...filters))
    .orderBy(asc(apps.name), asc(apps.id))
    .limit(options.limit + 1);
  return pageOf(rows, options.limit, (r) => [r.name, r.id]);
}
