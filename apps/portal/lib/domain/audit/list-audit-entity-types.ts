import { auditLog } from "@sluice/db";
import { asc } from "drizzle-orm";

import type { AuthorizedActor } from "../../auth/actor";
import type { DbOrTx } from "../../db";

/** The entity types the log has seen, to suggest in the audit page's filter. */
export async function listAuditEntityTypes(options: { db: DbOrTx; actor: AuthorizedActor<"editor"> }): Promise<string[]> {
  const rows = await options.db
    .selectDistinct({ entityType: auditLog.entityType })
    .from(auditLog)
    .orderBy(asc(auditLog.entityType))
    .limit(100);
  return rows.map((r) => r.entityType);
}
