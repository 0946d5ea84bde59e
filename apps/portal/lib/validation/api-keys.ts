import { z } from "zod";

export const createApiKeyInput = z.object({
  name: z.string().trim().min(1, "give the key a name, e.g. the script that uses it").max(100, "must be at most 100 characters"),
  /** Days until the key stops working; omit for a key that does not expire. */
  expiresInDays: z.number().int("must be a whole number of days").min(1, "must be at least 1").max(3650, "must be at most 3650").optional(),
});

/** CreateApiKeyInput is createApiKeyInput after parsing: what the domain function takes, already validated. */
export type CreateApiKeyInput = z.output<typeof createApiKeyInput>;
