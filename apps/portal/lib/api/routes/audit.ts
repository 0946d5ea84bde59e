// The audit log: who changed what, when, with the entity before and after.
import { z } from "zod";

import { listAuditEntries } from "../../domain/audit/list-audit-entries";
import { auditFilterFields, fromBeforeTo, type AuditFilter } from "../../validation/audit";
import { defineRoute } from "../route";
import { decodeCursor, pageQuery, pageSchema } from "../../pagination";
import { timestamp } from "../schemas";

const auditEntry = z
  .object({
    id: z.number().int(),
    occurredAt: timestamp,
    actor: z.string().describe("Who acted, as recorded then: an e-mail, with the API key's prefix when one was used, or system"),
    actorUserId: z.uuid().nullable(),
    actorName: z.string().nullable().describe("The acting user's display name now, when they still exist and have one"),
    action: z.string().describe("entity.verb, e.g. endpoint.create"),
    entityType: z.string(),
    entityId: z.string().nullable(),
    entityName: z
      .string()
      .nullable()
      .describe(
        "What the entry is about, by name: an API's name and version, an app's name, an endpoint's path, a user's e-mail, a token's or grant's app; the current name while the entity exists, else the one recorded in the entry",
      ),
    before: z.unknown().describe("The entity before the change (null for a creation)"),
    after: z.unknown().describe("The entity after the change (null for a deletion)"),
  })
  .meta({ id: "AuditEntry" });

export const auditRoutes = [
  defineRoute({
    method: "GET",
    path: "/audit",
    operationId: "listAuditEntries",
    summary: "List audit log entries, newest first",
    description:
      "Every change to APIs, endpoints, apps, grants, tokens, keys and users. Filters combine with AND; `from` is inclusive, `to` exclusive.",
    tag: "Audit",
    auth: "editor",
    query: z.object({ ...auditFilterFields, ...pageQuery.shape }).refine(...fromBeforeTo),
    response: pageSchema(auditEntry),
    handler: async ({ db, actor, query }) => {
      const { limit, cursor, ...filter } = query as z.output<typeof pageQuery> & AuditFilter;
      return listAuditEntries({ db, actor, filter, limit, cursor: decodeCursor(cursor, 2) });
    },
  }),
];
