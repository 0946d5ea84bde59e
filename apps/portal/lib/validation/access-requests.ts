import { z } from "zod";

import { ACCESS_REQUEST_STATES } from "@sluice/db";

import { operationsSchema } from "./apps";

const text500 = (empty: string) => z.string().trim().min(1, empty).max(500, "must be at most 500 characters");

export const createAccessRequestInput = z.object({
  apiId: z.uuid("must be an API id (UUID)"),
  endpointIds: z
    .array(z.uuid("must be an endpoint id (UUID)"))
    .min(1, "choose at least one endpoint, or leave endpointIds out to ask for the whole API")
    .max(200, "at most 200 endpoints; ask for the whole API instead")
    .refine((ids) => new Set(ids).size === ids.length, "lists an endpoint twice")
    .optional()
    .describe("The endpoints of the API to access; leave out to ask for the whole API (every endpoint it has when approved)"),
  operations: operationsSchema.describe(
    "Each chosen endpoint must allow every operation; for the whole API, each endpoint gets what it allows",
  ),
  justification: text500("say in a few words what the app needs the access for").describe(
    "Why the app needs it, for the decider (1–500 characters)",
  ),
  planId: z
    .uuid("must be a plan id (UUID)")
    .optional()
    .describe(
      "One of the API's plans (GET /apis/{apiId}/plans); required when the API has plans. The grants the approval creates are under it; a plan with autoApprove approves the request as it is made.",
    ),
});

/** CreateAccessRequestInput is createAccessRequestInput after parsing: what the domain function takes, already validated. */
export type CreateAccessRequestInput = z.output<typeof createAccessRequestInput>;

export const rejectAccessRequestInput = z.object({
  reason: text500("give the requester a reason").describe("Shown to the requester on the app page (1–500 characters)"),
});

export type RejectAccessRequestInput = z.output<typeof rejectAccessRequestInput>;

export const accessRequestStateSchema = z.enum(ACCESS_REQUEST_STATES, { error: "must be pending, approved, rejected or withdrawn" });

export const accessRequestFilters = z.object({
  state: accessRequestStateSchema.optional().describe("Only requests in this state"),
  apiId: z.uuid("must be an API id (UUID)").optional().describe("Only requests for this API"),
  appId: z.uuid("must be an app id (UUID)").optional().describe("Only requests of this app"),
});
