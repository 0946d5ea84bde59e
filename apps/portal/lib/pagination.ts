// Keyset pagination for every list: `?limit=&cursor=`, answered with
// `{ items, nextCursor }`. Cursors are opaque (base64url JSON of the sort key),
// so lists stay fast at any depth and stable while rows are added.
import { z } from "zod";

import { invalid } from "./errors";

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

export const pageQuery = z.object({
  limit: z.coerce
    .number()
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(MAX_PAGE_SIZE, `must be at most ${MAX_PAGE_SIZE}`)
    .default(DEFAULT_PAGE_SIZE),
  cursor: z.string().max(1000, "is not a cursor from this API").optional(),
});

export function encodeCursor(values: (string | number)[]): string {
  return Buffer.from(JSON.stringify(values)).toString("base64url");
}

export function decodeCursor(cursor: string | undefined, arity: number): (string | number)[] | undefined {
  if (cursor === undefined || cursor === "") return undefined;
  try {
    const values = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(values) && values.length === arity && values.every((v) => typeof v === "string" || typeof v === "number"))
      return values;
  } catch {
    // fall through
  }
  throw invalid("cursor", "is not a cursor from this API; use the nextCursor of the previous page");
}

/** Fetch limit+1 rows, return `limit` of them and the cursor of the last one when there are more. */
export function pageOf<T>(rows: T[], limit: number, cursorOf: (row: T) => (string | number)[]) {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last ? encodeCursor(cursorOf(last)) : null };
}

export const pageSchema = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    nextCursor: z.string().nullable().describe("Pass as ?cursor= for the next page; null on the last page"),
  });
