import { MAX_PLAN_LIMIT } from "@sluice/db";
import { z } from "zod";

const limit = (what: string) =>
  z
    .number({ error: "must be a positive whole number, or null for no limit" })
    .int("must be a whole number")
    .min(1, "must be at least 1 (null for no limit)")
    .max(MAX_PLAN_LIMIT, `must be at most ${MAX_PLAN_LIMIT}`)
    .nullable()
    .describe(`${what}; null: no limit`);

export const planLimitsSchema = z.object({
  connections: limit("Concurrent connections of one app (all gateway nodes together)"),
  subscriptionsPerConnection: limit("Subscriptions one connection may hold"),
  publishPerSecond: limit("Messages one app may publish per second"),
  deliveredPerSecond: limit("Messages delivered to one app per second"),
  deliveredBytesPerSecond: limit("Bytes delivered to one app per second"),
});

export type PlanLimitsInput = z.output<typeof planLimitsSchema>;

const planName = z.string().trim().min(1, "give the plan a name").max(40, "must be at most 40 characters");
const planDescription = z.string().trim().max(500, "must be at most 500 characters");

export const createPlanInput = z.object({
  name: planName.describe("Unique in the API, whatever the case (1–40 characters)"),
  description: planDescription.default(""),
  limits: planLimitsSchema.partial().default({}).describe("Each limit a positive whole number, or null or left out for none"),
  autoApprove: z.boolean().default(false).describe("An access request for this plan is approved as it is made"),
});

export type CreatePlanInput = z.output<typeof createPlanInput>;

export const updatePlanInput = z.object({
  name: planName.optional(),
  description: planDescription.optional(),
  limits: planLimitsSchema.partial().optional().describe("The limits given change; those left out keep their value"),
  autoApprove: z.boolean().optional(),
});

export type UpdatePlanInput = z.output<typeof updatePlanInput>;
