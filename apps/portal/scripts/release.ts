// The release step of a deployment, run once per install and upgrade before
// the new portal serves (the Helm chart's pre-install/pre-upgrade Job, the
// compose file's `release` service): pending migrations first, then
// prepare.ts (signing key, the first admin or its one-time setup link, the
// live console's app). Both are safe to run again and to race: migrations
// and each preparation step hold their own advisory locks.
//   node --import tsx scripts/release.ts
import { databaseUrlFromEnv } from "@sluice/db";
import { migrateDatabase } from "@sluice/db/migrate";

await migrateDatabase({ url: databaseUrlFromEnv() });
process.stderr.write("release: migrations applied\n");
await import("./prepare");
