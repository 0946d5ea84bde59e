import { fileURLToPath } from "node:url";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";

export const MIGRATIONS_FOLDER = fileURLToPath(new URL("../migrations", import.meta.url));

/**
 * Applies every pending SQL migration in order. Safe to run on every start: Drizzle
 * records applied migrations in drizzle.__drizzle_migrations and skips them, and an
 * advisory lock keeps two starters from migrating at once.
 */
export async function migrateDatabase(options: { url: string }): Promise<void> {
  const client = new pg.Client({ connectionString: options.url });
  await client.connect();
  try {
    await client.query("select pg_advisory_lock(hashtext('sluice.migrate'))");
    await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
  } finally {
    await client.end();
  }
}
