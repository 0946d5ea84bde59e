// Filters of the audit log, shared by GET /api/v1/audit and the /audit page.
import { z } from "zod";

export const auditFilterFields = {
  entityType: z
    .string()
    .max(50, "must be at most 50 characters")
    .regex(/^[a-z_]+$/, "must be an entity type such as endpoint or api_key (lower-case letters and _)")
    .optional()
    .describe("Only entries about this kind of entity, e.g. endpoint, app, token, user"),
  entityId: z
    .string()
    .min(1, "must not be empty")
    .max(200, "must be at most 200 characters")
    .optional()
    .describe("Only entries about this entity (its id)"),
  action: z
    .string()
    .max(100, "must be at most 100 characters")
    .regex(/^[a-z_]+\.[a-z_]+$/, "must be an action such as endpoint.create (entity.verb)")
    .optional()
    .describe("Only this action, e.g. token.revoke"),
  actor: z
    .string()
    .min(1, "must not be empty")
    .max(200, "must be at most 200 characters")
    .optional()
    .describe("Only entries whose actor contains this text (case-insensitive), e.g. an e-mail"),
  from: z.iso
    .datetime({ offset: true, error: "must be an ISO 8601 date-time with a time zone, e.g. 2026-11-22T10:00:00Z" })
    .optional()
    .describe("Entries at or after this instant"),
  to: z.iso
    .datetime({ offset: true, error: "must be an ISO 8601 date-time with a time zone, e.g. 2026-11-22T18:00:00Z" })
    .optional()
    .describe("Entries before this instant"),
};

/** A time window must not be empty. Applied to every schema that has the fields above. */
export const fromBeforeTo: [(f: { from?: string; to?: string }) => boolean, { path: string[]; message: string }] = [
  (f) => !f.from || !f.to || Date.parse(f.from) < Date.parse(f.to),
  { path: ["to"], message: "must be later than from" },
];

export const auditFilterInput = z.object(auditFilterFields).refine(...fromBeforeTo);

export type AuditFilter = z.output<typeof auditFilterInput>;
