import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "./schema.ts";

export type Database = NodePgDatabase<typeof schema> & { $client: pg.Pool };

/** The database URL from the environment; fails fast with a clear message when missing. */
export function databaseUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  const url = env.DATABASE_URL;
  if (!url) {
    throw new Error(
      "DATABASE_URL is not set. Start the stack with `./sluice start` (it sets it), or export DATABASE_URL=postgres://user:pass@host:5432/db",
    );
  }
  return url;
}

/** A pooled Drizzle client. Close it with `db.$client.end()`. */
export function createDb(options: { url?: string; max?: number } = {}): Database {
  const pool = new pg.Pool({
    connectionString: options.url ?? databaseUrlFromEnv(),
    max: options.max ?? 10,
  });
  return drizzle(pool, { schema, casing: "snake_case" }) as Database;
}
