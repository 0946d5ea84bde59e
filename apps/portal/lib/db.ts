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
    // A connection that PostgreSQL closes (a restart, a failover, an idle
    // timeout) raises an "error" event: on the pool for an idle connection
    // (the pool then drops it), and on the client itself for one checked out
    // but between queries (a transaction waiting on the portal's own work).
    // An "error" event without a listener is an uncaught exception (Next.js
    // logs "uncaughtException" and carries on; nothing should rely on that).
    // The request that holds the connection fails on its own with "not
    // queryable", answered 503 (database-unavailable.ts).
    const pool = db.$client;
    pool.on("error", (err) => console.warn(`database: an idle pooled connection failed (${err.message}); it is replaced when needed`));
    pool.on("connect", (client) =>
      client.on("error", (err) => console.warn(`database: a connection in use failed (${err.message}); its request fails`)),
    );
    holder.__sluiceDb = db;
  }
  return holder.__sluiceDb;
}
