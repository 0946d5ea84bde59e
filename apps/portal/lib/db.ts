// One pooled database client per server process. Next.js may evaluate this module
// more than once (route handlers and pages are bundled separately), so the pool
// lives on globalThis rather than in a module variable.
import { createDb, type Database } from "@sluice/db";

export type { Database };

/** A transaction handle, accepted wherever a domain function may join an outer transaction. */
export type Tx = Parameters<Parameters<Database["transaction"]>[0]>[0];
export type DbOrTx = Database | Tx;

const holder = globalThis as typeof globalThis & { __sluiceDb?: Database };

export function getDb(): Database {
  holder.__sluiceDb ??= createDb({ max: 10 });
  return holder.__sluiceDb;
}
