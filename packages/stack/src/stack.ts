// Starts the whole local stack in order: checks first (ports, Java, external
// services), then PostgreSQL, Kafka, the schema registry and the builds in
// parallel, then migrations,
// then the gateway, the bridge and the portal (and, in local mode, the demo feeder).
import { writeFileSync } from "node:fs";
import path from "node:path";
import { migrateDatabase } from "@sluice/db/migrate";
import type { StackConfig, StackUrls } from "./config.ts";
import { StackError } from "./errors.ts";
import {
  DEMO_AVRO_TOPIC,
  DEMO_TOPIC,
  demoAvroEnabled,
  demoEnabled,
  ensureDemoTopic,
  registerDemoAvroSchemas,
  startDemoFeeder,
} from "./demo.ts";
import { checkExternalKafka, startLocalKafka } from "./kafka.ts";
import { checkExternalSchemaRegistry, findRegistryJava, startLocalSchemaRegistry } from "./schema-registry.ts";
import { say } from "./log.ts";
import { checkExternalPostgres, startEmbeddedPostgres } from "./postgres.ts";
import { assertJava, assertPortsFree } from "./preflight.ts";
import { preparePortal, portalSecretKey } from "./portal-prepare.ts";
import { buildGateway, buildPortal, serviceUrls, startServices } from "./services.ts";
import { stackEnv } from "./stack-env.ts";
import type { Supervisor } from "./supervisor.ts";

export function runDir(config: StackConfig): string {
  return path.join(config.dataDir, "run");
}

/** Where a started stack describes itself, for the test runner and other tools. */
export function stackFile(config: StackConfig): string {
  return path.join(runDir(config), "stack.json");
}

export async function startStack(config: StackConfig, supervisor: Supervisor): Promise<StackUrls> {
  await supervisor.reapLeftovers();
  await assertPortsFree(config);
  if (config.externalDatabaseUrl) await checkExternalPostgres(config.externalDatabaseUrl);
  if (config.externalKafkaBrokers) await checkExternalKafka(config.externalKafkaBrokers);
  else await assertJava(config);
  if (config.externalSchemaRegistryUrl) await checkExternalSchemaRegistry();
  const registryJava = config.externalSchemaRegistryUrl ? undefined : await findRegistryJava(config);

  const [databaseUrl, kafka, schemaRegistryUrl] = await Promise.all([
    config.externalDatabaseUrl ?? startEmbeddedPostgres(config, supervisor),
    config.externalKafkaBrokers ? { brokers: config.externalKafkaBrokers } : startLocalKafka(config, supervisor),
    config.externalSchemaRegistryUrl ?? startLocalSchemaRegistry(config, supervisor, registryJava!),
    buildGateway(config, supervisor),
    buildPortal(config, supervisor),
  ]);

  say("applying database migrations");
  try {
    await migrateDatabase({ url: databaseUrl });
  } catch (err) {
    throw new StackError(`Applying database migrations failed: ${(err as Error).message}`);
  }

  const kafkaBrokers = kafka.brokers;
  const infra = { databaseUrl, kafkaBrokers, schemaRegistryUrl };
  const portalOnly = { SLUICE_SECRET_KEY: portalSecretKey(config) };
  const demo = demoEnabled(config);
  let demoAvro = demo && demoAvroEnabled(config);
  if (demo) await ensureDemoTopic(kafkaBrokers, { avro: demoAvro });
  // Registered before the prepare step: the demo's avro endpoint names a subject
  // the registry must have. A demo that cannot start is left out, not fatal.
  if (demoAvro) {
    try {
      await registerDemoAvroSchemas(schemaRegistryUrl);
    } catch (err) {
      say(`the Avro demo is off: ${(err as Error).message}`);
      demoAvro = false;
    }
  }
  const demoEnv = demo ? { SLUICE_DEMO_TOPIC: DEMO_TOPIC, ...(demoAvro ? { SLUICE_DEMO_AVRO_TOPIC: DEMO_AVRO_TOPIC } : {}) } : {};
  const { admin, signingKey, demo: demoApi } = await preparePortal(config, stackEnv(config, infra, { ...portalOnly, ...demoEnv }));
  if (signingKey.kind === "created") say(`generated the token-signing key ${signingKey.kid} (ES256, encrypted at rest)`);
  if (demoApi?.kind === "created")
    say(
      `added the demo API "Demo vehicles" (${[demoApi.endpointPath, demoApi.avroEndpointPath].filter(Boolean).join(", ")}) to the empty catalog`,
    );
  await startServices(config, supervisor, infra, portalOnly);
  if (demo) startDemoFeeder(config, supervisor, stackEnv(config, infra, demoEnv));
  const urls: StackUrls = {
    ...serviceUrls(config),
    databaseUrl,
    kafkaBrokers,
    schemaRegistryUrl,
    ...("secured" in kafka && kafka.secured ? { securedKafka: kafka.secured } : {}),
    ...(admin.kind === "setup-link" ? { setupUrl: admin.url } : {}),
  };
  writeFileSync(stackFile(config), JSON.stringify(urls, null, 2), { mode: 0o600 });
  return urls;
}
