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
  if (!holder.__sluiceDb) {
    const db = createDb({ max: 10 });
    // An idle pooled connection that PostgreSQL closes (a restart, a failover,
    // an idle timeout) is reported as an "error" event on the pool, which then
    // drops it and opens a new one when needed. Without a listener Node treats
    // the event as an uncaught exception (Next.js logs "uncaughtException" for
    // each one and carries on); the requests in flight get their own errors,
    // answered 503 (database-unavailable.ts).
    db.$client.on("error", (err) => console.warn(`database: a pooled connection failed (${err.message}); it is replaced when needed`));
    holder.__sluiceDb = db;
  }
  return holder.__sluiceDb;
}
