// The stack's schema registry: SCHEMA_REGISTRY_URL when set (dev profile), else a
// local Apicurio Registry 3.3 (a ready Quarkus app from Maven Central, unpacked
// once into .sluice/cache), which serves the Confluent-compatible API the
// gateway and the portal speak at <url>/apis/ccompat/v7. The test profile's is
// in memory (hermetic); the dev profile's keeps its schemas in an H2 file under
// the data dir, so records written before a restart still decode after it.
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { StackConfig } from "./config.ts";
import { RegistryClient, loadRegistrySettings } from "@sluice/schema-registry";
import { StackError } from "./errors.ts";
import { say } from "./log.ts";
import { javaMajorVersion } from "./preflight.ts";
import type { Supervisor } from "./supervisor.ts";
import { httpOk, waitUntil } from "./wait.ts";

export const APICURIO_VERSION = "3.3.3";
/** The Confluent-compatible API under a registry's base URL. */
export const CCOMPAT_PATH = "/apis/ccompat/v7";
/** Apicurio Registry 3 is a Quarkus app that needs Java 21. */
const REGISTRY_JAVA_MAJOR = 21;

/** The base URL of the stack's registry (its Confluent-compatible API is under CCOMPAT_PATH). */
export function schemaRegistryUrl(config: StackConfig): string {
  return config.externalSchemaRegistryUrl ?? `http://${config.host}:${config.ports.schemaRegistry}${CCOMPAT_PATH}`;
}

/** The major version of java, NaN when it cannot be run or tells none. */
const javaMajor = (java: string) => javaMajorVersion(java).catch(() => Number.NaN);

/**
 * The Java the local registry runs on: SLUICE_REGISTRY_JAVA when set, else the
 * stack's Java (config.java) when it is 21 or newer, else the newest 21+ JDK
 * under /usr/lib/jvm (Debian and Temurin packages install there).
 */
export async function findRegistryJava(config: StackConfig, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const hint =
    `The local schema registry (Apicurio Registry ${APICURIO_VERSION}) needs Java ${REGISTRY_JAVA_MAJOR} or newer: install it ` +
    "(Debian: apt-get install -y openjdk-21-jre-headless), set SLUICE_REGISTRY_JAVA to its java binary, " +
    "or set SCHEMA_REGISTRY_URL to use an existing registry.";
  if (env.SLUICE_REGISTRY_JAVA) {
    const major = await javaMajor(env.SLUICE_REGISTRY_JAVA);
    if (major >= REGISTRY_JAVA_MAJOR) return env.SLUICE_REGISTRY_JAVA;
    throw new StackError(
      `SLUICE_REGISTRY_JAVA=${env.SLUICE_REGISTRY_JAVA} is ${Number.isNaN(major) ? "not a working java" : `Java ${major}`}. ${hint}`,
    );
  }
  if ((await javaMajor(config.java)) >= REGISTRY_JAVA_MAJOR) return config.java;
  const jvmDir = "/usr/lib/jvm";
  const candidates = existsSync(jvmDir) ? readdirSync(jvmDir).map((d) => path.join(jvmDir, d, "bin", "java")) : [];
  let best: { java: string; major: number } | undefined;
  for (const java of candidates.filter((j) => existsSync(j))) {
    const major = await javaMajor(java);
    if (major >= REGISTRY_JAVA_MAJOR && major > (best?.major ?? 0)) best = { java, major };
  }
  if (best) return best.java;
  throw new StackError(`No Java ${REGISTRY_JAVA_MAJOR}+ found (${config.java} and ${jvmDir}). ${hint}`);
}

/** Unpacks Apicurio Registry from Maven Central (through ~/.m2) into the shared cache, once; returns its directory. */
async function ensureApicurio(config: StackConfig, supervisor: Supervisor): Promise<string> {
  const dir = path.join(config.cacheDir, `apicurio-registry-${APICURIO_VERSION}`);
  if (existsSync(path.join(dir, ".complete"))) return dir;
  say(`fetching Apicurio Registry ${APICURIO_VERSION} from Maven Central (once; about 160 MB, cached in ~/.m2 and .sluice/cache)`);
  const staging = `${dir}.partial`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const fetched = await supervisor.run({
    name: "registry",
    command: "mvn",
    args: [
      "-q",
      "-B",
      "dependency:copy",
      `-Dartifact=io.apicurio:apicurio-registry-app:${APICURIO_VERSION}:tar.gz:all`,
      `-DoutputDirectory=${staging}`,
    ],
  });
  if (fetched !== 0) {
    throw new StackError(
      fetched === 127
        ? "Maven (mvn) is needed once to fetch the schema registry: install it (Debian: apt-get install -y maven), or set SCHEMA_REGISTRY_URL."
        : "Fetching Apicurio Registry with Maven failed; see the [registry] lines above.",
    );
  }
  const archive = path.join(staging, `apicurio-registry-app-${APICURIO_VERSION}-all.tar.gz`);
  const unpacked = await supervisor.run({ name: "registry", command: "tar", args: ["-xzf", archive, "-C", staging] });
  if (unpacked !== 0 || !existsSync(path.join(staging, "quarkus-run.jar"))) {
    throw new StackError(`Unpacking ${archive} failed; see the [registry] lines above.`);
  }
  rmSync(archive);
  writeFileSync(path.join(staging, ".complete"), `${APICURIO_VERSION}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
  return dir;
}

/** Starts the local registry on java (findRegistryJava) and waits until its Confluent-compatible API answers; returns its base URL. */
export async function startLocalSchemaRegistry(config: StackConfig, supervisor: Supervisor, java: string): Promise<string> {
  const app = await ensureApicurio(config, supervisor);
  const storage: NodeJS.ProcessEnv =
    config.profile === "dev"
      ? {
          APICURIO_STORAGE_KIND: "sql",
          APICURIO_STORAGE_SQL_KIND: "h2",
          APICURIO_DATASOURCE_URL: `jdbc:h2:file:${path.join(config.dataDir, "registry", "registry")};DB_CLOSE_ON_EXIT=FALSE`,
        }
      : {};
  if (config.profile === "dev") mkdirSync(path.join(config.dataDir, "registry"), { recursive: true });
  const proc = supervisor.start({
    name: "registry",
    command: java,
    args: ["-Xmx384m", "-XX:+UseSerialGC", "-jar", path.join(app, "quarkus-run.jar")],
    cwd: app,
    env: {
      ...process.env,
      QUARKUS_HTTP_HOST: config.host,
      QUARKUS_HTTP_PORT: String(config.ports.schemaRegistry),
      // Warnings and errors only: no banner, no line per request.
      QUARKUS_LOG_LEVEL: "WARN",
      QUARKUS_LOG_CATEGORY__IO_APICURIO__LEVEL: "WARN",
      QUARKUS_BANNER_ENABLED: "false",
      QUARKUS_HTTP_ACCESS_LOG_ENABLED: "false",
      // Quarkus' management interface (health, metrics) would bind 0.0.0.0:9000:
      // open to the network, and taken by the first of two stacks.
      QUARKUS_MANAGEMENT_HOST: config.host,
      QUARKUS_MANAGEMENT_PORT: String(config.ports.schemaRegistryManagement),
      ...storage,
    },
    stopTimeoutMs: 15_000,
  });
  const url = schemaRegistryUrl(config);
  await waitUntil("the schema registry", () => httpOk(`${url}/subjects`), { timeoutMs: 120_000, proc, intervalMs: 250 });
  return url;
}

/** The preflight of an external registry: with its settings (SCHEMA_REGISTRY_*), it must answer its subject list. */
export async function checkExternalSchemaRegistry(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const settings = loadRegistrySettings(env);
  if (!settings) return;
  try {
    await new RegistryClient(settings).subjects();
  } catch (err) {
    // The client's messages name SCHEMA_REGISTRY_URL and never a credential.
    throw new StackError(
      `Cannot use the schema registry: ${(err as Error).message}. ` +
        "Give the base URL of its Confluent-compatible API (for Apicurio: https://host/apis/ccompat/v7) and its credentials, or unset SCHEMA_REGISTRY_URL to use the local registry.",
    );
  }
}
