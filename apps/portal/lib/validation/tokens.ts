import { z } from "zod";

export const MIN_TOKEN_LIFETIME_SECONDS = 60;
const MAX_ENTRIES = 100;

const entries = z
  .array(z.string().max(1024, "must be at most 1024 characters"))
  .max(MAX_ENTRIES, `must list at most ${MAX_ENTRIES} entries`)
  .optional();

export const mintTokenInput = z.object({
  permissions: z
    .object({
      sub: entries.describe("Endpoints or wildcards the token may subscribe to"),
      pub: entries.describe("Endpoints or wildcards the token may publish to"),
      all: entries.describe("Endpoints or wildcards the token may subscribe and publish to"),
    })
    .strict()
    .refine(
      (p) => (p.sub?.length ?? 0) + (p.pub?.length ?? 0) + (p.all?.length ?? 0) > 0,
      "choose at least one endpoint: a token without permissions could do nothing",
    ),
  lifetimeSeconds: z
    .number({ error: "must be a number of seconds" })
    .int("must be a whole number of seconds")
    .min(MIN_TOKEN_LIFETIME_SECONDS, `must be at least ${MIN_TOKEN_LIFETIME_SECONDS} seconds`)
    .describe("At most the portal's SLUICE_TOKEN_MAX_LIFETIME_SECONDS (default 90 days)"),
  description: z.string().trim().max(200, "must be at most 200 characters").default(""),
});

/** MintTokenInput is mintTokenInput after parsing: what the domain function takes, already validated. */
export type MintTokenInput = z.output<typeof mintTokenInput>;
