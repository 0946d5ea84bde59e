// Throwaway databases for tests that need an empty, migrated install of their
// own (first-admin rules, the bridge's outbox), on the server of a given URL.
// Test support only: outside src/ and imported as @sluice/db/test-support/scratch,
// so nothing at runtime depends on it.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { migrateDatabase } from "../src/migrate.ts";

export interface ScratchDatabase {
  /** The URL of the new database. */
  url: string;
  /** Drops it; call after every client of it has been closed. */
  drop(): Promise<void>;
}

export async function createScratchDatabase(options: { serverUrl: string; prefix: string }): Promise<ScratchDatabase> {
  const name = `${options.prefix}_${randomBytes(6).toString("hex")}`;
  const admin = async <T>(run: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: options.serverUrl });
    await client.connect();
    try {
      return await run(client);
    } finally {
      await client.end();
    }
  };
  await admin((c) => c.query(`create database ${name}`));
  const url = new URL(options.serverUrl);
  url.pathname = `/${name}`;
  await migrateDatabase({ url: url.toString() });
  return {
    url: url.toString(),
    drop: () =>
      admin(async (c) => {
        // pg's pool.end() resolves before its sockets have closed, so the database
        // may still look busy for a moment. Retry rather than DROP ... WITH (FORCE),
        // which would kill those sockets mid-close and surface as an uncaught error.
        for (let attempt = 0; ; attempt++) {
          try {
            await c.query(`drop database if exists ${name}`);
            return;
          } catch (err) {
            if (attempt >= 100) throw err;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
      }),
  };
}
