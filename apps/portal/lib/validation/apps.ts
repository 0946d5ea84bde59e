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
/** A parameterised endpoint path as the catalog shows it: `/topic/{name}`, the whole key one parameter. */
const PARAMETERISED_PATH = /^(\/[^/{}*]+)\/\{[A-Za-z_][A-Za-z0-9_.-]*\}$/;

/**
 * A grant pattern: a concrete endpoint path or a `/…/*` wildcard, stored in
 * canonical form. A parameterised path copied from the catalog (`/prices/{symbol}`)
 * is accepted as what it serves, every key of the topic: `/prices/*`.
 */
export const grantPatternSchema = z
  .string()
  .trim()
  .max(1024, "must be at most 1024 characters")
  .transform((raw, ctx) => {
    const entry = raw.replace(PARAMETERISED_PATH, "$1/*");
    if (PARAMETER_SEGMENT.test(entry)) {
      ctx.addIssue({
        code: "custom",
        message: "a parameter must be the whole key (/topic/{name}, every key of the topic); grant part of a topic with /topic/prefix/*",
      });
      return z.NEVER;
    }
    const parsed = parsePattern(entry);
    if (!parsed.ok) {
      ctx.addIssue({ code: "custom", message: `${parsed.reason} (use /topic/key, /topic/{param} or a wildcard such as /topic/*)` });
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
  endpointPattern: grantPatternSchema.describe(
    "An endpoint path (/orders/eu), a parameterised path as the catalog shows it (/prices/{symbol}, stored as /prices/*) or a wildcard (/prices/*, /*); stored in canonical form",
  ),
  operations: operationsSchema,
  planId: grantPlanSchema.optional(),
});

/** AddGrantInput is addGrantInput after parsing: what the domain function takes, already validated. */
export type AddGrantInput = z.output<typeof addGrantInput>;

export const updateGrantInput = z.object({ planId: grantPlanSchema });

export type UpdateGrantInput = z.output<typeof updateGrantInput>;

/** "Grant to an app…" on an endpoint or API page: endpoints of that API, turned into grant patterns by the domain. */
export const grantEndpointsInput = z.object({
  appId: z.uuid("choose an app"),
  endpointIds: z.array(z.uuid("must be an endpoint id (UUID)")).min(1, "choose at least one endpoint"),
  operations: operationsSchema,
  planId: grantPlanSchema,
});

export type GrantEndpointsInput = z.output<typeof grantEndpointsInput>;
