// Every change to the catalog or to access writes, in the caller's transaction,
// one audit entry and the catalog records the gateways need (the outbox the
// bridge publishes). Because both ride the same transaction as the change, a
// rolled-back change leaves no trace and a committed one cannot miss its record.
import { auditLog, catalogOutbox } from "@sluice/db";

import { actorLabel, type Actor } from "../auth/actor";
import type { CatalogRecord } from "../catalog/records";
import type { Tx } from "../db";

export interface Change {
  /** `<entity>.<verb>`, e.g. `endpoint.create`, `token.revoke`. */
  action: string;
  entityType: string;
  entityId: string | null;
  before?: unknown;
  after?: unknown;
  /** Records for `__sluice_catalog`, in the order the gateways must apply them. */
  catalog?: CatalogRecord[];
}

export async function recordChange(tx: Tx, actor: Actor, change: Change): Promise<void> {
  await tx.insert(auditLog).values({
    actorUserId: actor.via.kind === "system" ? null : actor.userId,
    actor: actorLabel(actor),
    action: change.action,
    entityType: change.entityType,
    entityId: change.entityId,
    before: change.before === undefined ? null : toJson(change.before),
    after: change.after === undefined ? null : toJson(change.after),
  });
  // In batches: one change may carry thousands of records (renaming or deleting an
  // API with all its endpoints), more than one statement's bind parameters allow.
  const records = change.catalog ?? [];
  for (let i = 0; i < records.length; i += OUTBOX_BATCH) {
    await tx.insert(catalogOutbox).values(records.slice(i, i + OUTBOX_BATCH).map((r) => ({ recordKey: r.key, recordValue: r.value })));
  }
}

const OUTBOX_BATCH = 1000;

/** Dates become ISO strings and secrets never reach the audit log. */
function toJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, v) => (SECRET_FIELDS.has(key) ? "[redacted]" : v)));
}

const SECRET_FIELDS = new Set([
  "passwordHash",
  "privateKeyCiphertext",
  "secretHash",
  "tokenHash",
  "csrfToken",
  "token",
  "password",
  "tokenCiphertext",
]);
