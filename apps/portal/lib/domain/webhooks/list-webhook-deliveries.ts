// The webhook delivery log (admins): newest first, keyset-paginated on (created_at, id).
import { webhookDeliveries, type WebhookDeliveryState } from "@sluice/db";
import { and, desc, eq, lt, or, sql, type SQL } from "drizzle-orm";
import { z } from "zod";

import type { AuthorizedActor } from "../../auth/actor";
import type { DbOrTx } from "../../db";
import { invalid } from "../../errors";
import { decodeCursor, pageOf } from "../../pagination";

export async function listWebhookDeliveries(options: {
  db: DbOrTx;
  actor: AuthorizedActor<"admin">;
  state?: WebhookDeliveryState;
  limit: number;
  cursor?: string;
}) {
  const where: (SQL | undefined)[] = [options.state ? eq(webhookDeliveries.state, options.state) : undefined];
  const cursor = decodeCursor(options.cursor, 2);
  if (cursor) {
    const [at, id] = cursor as [string, string];
    if (Number.isNaN(Date.parse(at)) || !z.uuid().safeParse(id).success)
      throw invalid("cursor", "is not a cursor from this API; use the nextCursor of the previous page");
    const atSql = sql`${at}::timestamptz`;
    where.push(
      or(lt(webhookDeliveries.createdAt, atSql), and(eq(webhookDeliveries.createdAt, atSql), lt(webhookDeliveries.id, sql`${id}::uuid`))),
    );
  }
  const rows = await options.db
    .select({ delivery: webhookDeliveries, key: sql<string>`${webhookDeliveries.createdAt}::text` })
    .from(webhookDeliveries)
    .where(and(...where))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(options.limit + 1);
  const page = pageOf(rows, options.limit, (r) => [r.key, r.delivery.id]);
  return { ...page, items: page.items.map((r) => r.delivery) };
}
