import { z } from "zod";

import { parsePattern } from "../permissions/match";

export const appNameSchema = z.string().trim().min(1, "give the app a name").max(100, "must be at most 100 characters");
export const appDescriptionSchema = z.string().trim().max(2000, "must be at most 2000 characters");

export const createAppInput = z.object({
  name: appNameSchema,
  description: appDescriptionSchema.default(""),
  ownerId: z.uuid("must be a user id (UUID)").optional().describe("Editors and admins may create an app for someone else; default: you"),
});

/** CreateAppInput is createAppInput after parsing: what the domain function takes, already validated. */
export type CreateAppInput = z.output<typeof createAppInput>;

export const updateAppInput = z.object({
  name: appNameSchema.optional(),
  description: appDescriptionSchema.optional(),
  ownerId: z.uuid("must be a user id (UUID)").optional().describe("Editors and admins only"),
});

/** UpdateAppInput is updateAppInput after parsing: what the domain function takes, already validated. */
export type UpdateAppInput = z.output<typeof updateAppInput>;

const PARAMETER_SEGMENT = /(^|\/)\{[^/]*\}(\/|$)/;

/** A grant pattern: a concrete endpoint path or a `/…/*` wildcard, stored in canonical form. */
export const grantPatternSchema = z
  .string()
  .max(1024, "must be at most 1024 characters")
  .transform((entry, ctx) => {
    if (PARAMETER_SEGMENT.test(entry)) {
      ctx.addIssue({ code: "custom", message: "a parameterised path is not a grant pattern: grant every key of the topic with /topic/*" });
      return z.NEVER;
    }
    const parsed = parsePattern(entry);
    if (!parsed.ok) {
      ctx.addIssue({ code: "custom", message: `${parsed.reason} (use /topic/key or a wildcard such as /topic/*)` });
      return z.NEVER;
    }
    return parsed.value.canonical;
  });

export const operationsSchema = z
  .array(z.enum(["subscribe", "publish"], { error: "must be subscribe or publish" }))
  .min(1, "choose subscribe, publish or both")
  .refine((ops) => new Set(ops).size === ops.length, "lists an operation twice");

const grantPlanSchema = z
  .uuid("must be a plan id (UUID)")
  .nullable()
  .describe("A plan of the API whose endpoints the pattern reaches (a pattern spanning APIs, or reaching none, has no plan); null: none");

export const addGrantInput = z.object({
  endpointPattern: grantPatternSchema.describe("An endpoint path (/orders/eu) or a wildcard (/prices/*, /*); stored in canonical form"),
  operations: operationsSchema,
  planId: grantPlanSchema.optional(),
});

/** AddGrantInput is addGrantInput after parsing: what the domain function takes, already validated. */
export type AddGrantInput = z.output<typeof addGrantInput>;

export const updateGrantInput = z.object({ planId: grantPlanSchema });

export type UpdateGrantInput = z.output<typeof updateGrantInput>;
