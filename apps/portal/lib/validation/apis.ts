// Input rules for Streaming APIs. The database enforces the same limits
// (streaming_apis_* constraints); these give the message naming the field first.
import { z } from "zod";

import { pageQuery } from "../pagination";

/**
 * What the database accepts (streaming_apis_version_format) and what APIs created
 * before versions had to be semantic may still carry, e.g. `v1` or `one`.
 */
export const API_VERSION = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,49}$/;
/**
 * A new version is MAJOR.MINOR.PATCH with an optional -pre-release and +build
 * (Semantic Versioning 2.0.0), as docs/portal.md promises and clients compare.
 * Checked in code rather than in the database, so existing rows need no migration.
 */
export const SEMANTIC_API_VERSION =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
export const SEMANTIC_VERSION_MESSAGE = "must be MAJOR.MINOR.PATCH such as 1.0.0 (optionally -beta.1 or +build.5), at most 50 characters";
export const TAG = /^[a-z0-9][a-z0-9._-]{0,39}$/;
export const MAX_TAGS = 20;
export const DESCRIPTION_MAX = 2000;

export const apiName = z.string("must be text").trim().min(1, "is required").max(100, "must be at most 100 characters");
export const apiVersion = z
  .string("must be text")
  .trim()
  .min(1, { error: "is required, e.g. 1.0.0", abort: true })
  .max(50, { error: "must be at most 50 characters", abort: true })
  .regex(SEMANTIC_API_VERSION, SEMANTIC_VERSION_MESSAGE)
  .describe("MAJOR.MINOR.PATCH such as 1.0.0 (Semantic Versioning 2.0.0; an optional -pre-release and +build may follow)");
/**
 * On update the older, looser form still parses, so an API created before the
 * rule can be edited without changing its version; updateApi refuses a *changed*
 * version that is not semantic.
 */
const updatedApiVersion = z
  .string("must be text")
  .trim()
  .min(1, { error: "is required, e.g. 1.0.0", abort: true })
  .regex(API_VERSION, SEMANTIC_VERSION_MESSAGE)
  .describe("MAJOR.MINOR.PATCH such as 1.0.0. An API created with an older, non-semantic version may send that version unchanged.");
export const description = z.string("must be text").trim().max(DESCRIPTION_MAX, `must be at most ${DESCRIPTION_MAX} characters`);
export const tag = z
  .string("must be text")
  .trim()
  .toLowerCase()
  .regex(TAG, "must be 1–40 characters of a–z 0–9 . _ - starting with a letter or digit, e.g. market-data");
export const tags = z
  .array(tag, "must be a list of tags")
  .max(MAX_TAGS, `at most ${MAX_TAGS} tags`)
  .transform((list) => [...new Set(list)]);

export const createApiInput = z.object({
  name: apiName,
  version: apiVersion,
  description: description.default(""),
  tags: tags.default([]),
  /** Defaults to the creator. */
  ownerId: z.uuid("must be a user id (UUID)").nullable().optional(),
});

/** CreateApiInput is createApiInput after parsing: what the domain function takes, already validated. */
export type CreateApiInput = z.output<typeof createApiInput>;

export const updateApiInput = z.object({
  name: apiName.optional(),
  version: updatedApiVersion.optional(),
  description: description.optional(),
  tags: tags.optional(),
  ownerId: z.uuid("must be a user id (UUID)").nullable().optional(),
});

/** UpdateApiInput is updateApiInput after parsing: what the domain function takes, already validated. */
export type UpdateApiInput = z.output<typeof updateApiInput>;

export const listApisQuery = pageQuery.extend({
  q: z
    .string()
    .trim()
    .max(200, "must be at most 200 characters")
    .optional()
    .describe("Searches name, description and tags (case-insensitive)"),
  tag: tag.optional().describe("Only APIs with this tag"),
});

/** ListApisQuery is listApisQuery after parsing: what the domain function takes, already validated. */
export type ListApisQuery = z.output<typeof listApisQuery>;

/** "prices, EU" → ["prices", "EU"]: the form's comma-separated tags as a list (validated by `tags`). */
export function splitTags(text: string): string[] {
  return text
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
}
