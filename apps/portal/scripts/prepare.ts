// Run by the launcher before the portal starts (and usable by operators:
// `node --import tsx scripts/prepare.ts`). Makes sure a fresh install has a way
// in: the first admin from SLUICE_ADMIN_EMAIL/SLUICE_ADMIN_PASSWORD, or a one-time
// setup link; an active ES256 signing key (generated at first start), after
// tombstoning retired keys whose tokens have all expired; the live console's app;
// and, when the launcher feeds a demo topic (SLUICE_DEMO_TOPIC, and the Avro one,
// SLUICE_DEMO_AVRO_TOPIC, with the local schema registry), a demo API on an
// empty catalog. Prints one JSON line on stdout for the launcher; nothing else.
import { createDb } from "@sluice/db";

import { ensureConsoleApp } from "../lib/domain/console/ensure-console-app";
import { ensureDemoApi } from "../lib/domain/demo/ensure-demo-api";
import { ensureSigningKey } from "../lib/domain/signing-keys/ensure-signing-key";
import { expireRetiredSigningKeys } from "../lib/domain/signing-keys/expire-retired-signing-keys";
import { ensureFirstAdmin } from "../lib/domain/users/ensure-first-admin";
import { closeKafkaAdmins } from "../lib/kafka/admin";

const db = createDb({ max: 2 });
try {
  const admin = await ensureFirstAdmin({ db });
  const signingKey = await ensureSigningKey({ db });
  const expiredKeys = await db.transaction((tx) => expireRetiredSigningKeys({ tx }));
  const consoleApp = await ensureConsoleApp({ db });
  const demoTopic = process.env.SLUICE_DEMO_TOPIC;
  const demo = demoTopic
    ? await ensureDemoApi({ db, topic: demoTopic, avroTopic: process.env.SLUICE_DEMO_AVRO_TOPIC || undefined })
    : { kind: "skipped" as const };
  process.stdout.write(
    `${JSON.stringify({ admin, signingKey: { ...signingKey, expiredKeys }, consoleApp: { id: consoleApp.app.id, created: consoleApp.created }, demo })}\n`,
  );
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await db.$client.end();
  // The demo endpoint's topic check connects the portal's shared Kafka admin client.
  await closeKafkaAdmins();
}
