// Run by the launcher before the portal starts (and usable by operators:
// `node --import tsx scripts/prepare.ts`). Makes sure a fresh install has a way
// in: the first admin from SLUICE_ADMIN_EMAIL/SLUICE_ADMIN_PASSWORD, or a one-time
// setup link; and an active ES256 signing key (generated at first start), after
// tombstoning retired keys whose tokens have all expired; and the live console's app. Prints one JSON line on
// stdout for the launcher; nothing else.
import { createDb } from "@sluice/db";

import { ensureConsoleApp } from "../lib/domain/console/ensure-console-app";
import { ensureSigningKey } from "../lib/domain/signing-keys/ensure-signing-key";
import { expireRetiredSigningKeys } from "../lib/domain/signing-keys/expire-retired-signing-keys";
import { ensureFirstAdmin } from "../lib/domain/users/ensure-first-admin";

const db = createDb({ max: 2 });
try {
  const admin = await ensureFirstAdmin({ db });
  const signingKey = await ensureSigningKey({ db });
  const expiredKeys = await db.transaction((tx) => expireRetiredSigningKeys({ tx }));
  const consoleApp = await ensureConsoleApp({ db });
  process.stdout.write(`${JSON.stringify({ admin, signingKey: { ...signingKey, expiredKeys }, consoleApp: { id: consoleApp.app.id, created: consoleApp.created } })}\n`);
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await db.$client.end();
}
