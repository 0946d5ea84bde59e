// Kafka for the stack: KAFKA_BROKERS when set, otherwise a single-node Apache Kafka
// 4.1 in KRaft mode (broker and controller in one JVM) from Maven Central jars, with
// its log under <dataDir>/kafka.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  type KafkaSettings,
  KafkaSettingsError,
  describeKafkaSettings,
  explainKafkaError,
  kafkaClientConfig,
  loadKafkaSettings,
} from "@sluice/kafka-settings";
import { Kafka, type KafkaConfig, logLevel } from "kafkajs";
import type { SecuredKafkaInfo, StackConfig } from "./config.ts";
import { StackError } from "./errors.ts";
import { say } from "./log.ts";
import {
  applyTestAcls,
  prepareSecuredKafka,
  scramFormatArgs,
  securedKafkaJvmOptions,
  securedListenerProperties,
  securedListenersEnabled,
} from "./secured-kafka.ts";
import type { Supervisor } from "./supervisor.ts";
import { startOAuthIssuer } from "./test-oauth-issuer.ts";
import { waitUntil } from "./wait.ts";

export const KAFKA_VERSION = "4.1.1";

process.env.KAFKAJS_NO_PARTITIONER_WARNING = "1";

/** security is the TLS/SASL part of the client config: none for the local Kafka. */
async function clusterAnswers(brokers: string[], security: Pick<KafkaConfig, "ssl" | "sasl"> = {}): Promise<boolean> {
  const admin = new Kafka({
    clientId: "sluice-stack",
    brokers,
    ...security,
    logLevel: logLevel.NOTHING,
    // Bounded well under the 15 s in which a misconfiguration must be named.
    connectionTimeout: 2000,
    authenticationTimeout: 5000,
    requestTimeout: 5000,
    retry: { retries: 0 },
  }).admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    return cluster.brokers.length > 0;
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

/**
 * checkExternalKafka is the preflight of an external Kafka: its security
 * settings (KAFKA_SECURITY_PROTOCOL, KAFKA_TLS_*, KAFKA_SASL_*) must be valid and
 * the cluster must answer with them, before any service starts.
 */
export async function checkExternalKafka(brokers: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let security: Pick<KafkaConfig, "ssl" | "sasl">;
  let settings: KafkaSettings;
  try {
    settings = loadKafkaSettings(env);
    if (settings.protocol !== "PLAINTEXT") say(`Kafka client settings: ${describeKafkaSettings(settings).join(" ")}`);
    security = kafkaClientConfig(settings, { warn: say });
  } catch (err) {
    if (err instanceof KafkaSettingsError) throw new StackError(`Invalid Kafka client settings: ${err.message}`);
    throw err;
  }
  try {
    await clusterAnswers(brokers, security);
  } catch (err) {
    const problem = explainKafkaError(err, settings);
    if (problem) {
      throw new StackError(`Kafka at KAFKA_BROKERS=${brokers.join(",")} refused the connection: ${problem.variable}: ${problem.message}`);
    }
    throw new StackError(
      `Cannot reach Kafka at KAFKA_BROKERS=${brokers.join(",")}: ${(err as Error).message}. ` +
        "Check the addresses and that the brokers run, or unset KAFKA_BROKERS to use the local Kafka.",
    );
  }
}

/** Copies Kafka's jars from Maven Central (through ~/.m2) into the shared cache, once. */
async function ensureKafkaJars(config: StackConfig, supervisor: Supervisor): Promise<string> {
  const libs = path.join(config.cacheDir, `kafka-${KAFKA_VERSION}`, "libs");
  if (existsSync(path.join(libs, ".complete"))) return libs;
  say(`fetching Apache Kafka ${KAFKA_VERSION} jars from Maven Central (once; cached in ~/.m2 and .sluice/cache)`);
  const staging = `${libs}.partial`;
  rmSync(staging, { recursive: true, force: true });
  const code = await supervisor.run({
    name: "kafka",
    command: "mvn",
    args: [
      "-q",
      "-B",
      "-f",
      path.join(config.repoRoot, "packages/stack/kafka/pom.xml"),
      "dependency:copy-dependencies",
      `-DoutputDirectory=${staging}`,
      "-DincludeScope=runtime",
    ],
  });
  if (code !== 0) {
    throw new StackError(
      code === 127
        ? "Maven (mvn) is needed once to fetch Kafka's jars: install it (Debian: apt-get install -y maven), or set KAFKA_BROKERS to use an existing Kafka."
        : "Fetching Kafka's jars with Maven failed; see the [kafka] lines above.",
    );
  }
  writeFileSync(path.join(staging, ".complete"), `${KAFKA_VERSION}\n`);
  rmSync(libs, { recursive: true, force: true });
  mkdirSync(path.dirname(libs), { recursive: true });
  renameSync(staging, libs);
  return libs;
}

function serverProperties(config: StackConfig, logDir: string): string {
  const { kafka, kafkaController } = config.ports;
  const h = config.host;
  const lines = [
    "# Written by the Sluice stack launcher at every start; edit packages/stack/src/kafka.ts instead.",
    "process.roles=broker,controller",
    "node.id=1",
    `controller.quorum.voters=1@${h}:${kafkaController}`,
    "controller.listener.names=CONTROLLER",
    "inter.broker.listener.name=PLAINTEXT",
    // The test profile adds its secured listeners (and the authorizer) here.
    ...(securedListenersEnabled(config)
      ? securedListenerProperties(config)
      : [
          `listeners=PLAINTEXT://${h}:${kafka},CONTROLLER://${h}:${kafkaController}`,
          `advertised.listeners=PLAINTEXT://${h}:${kafka}`,
          "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
        ]),
    `log.dirs=${logDir}`,
    "num.partitions=3",
    // Topics are created on purpose (portal, tests), never by a typo in a subscription.
    "auto.create.topics.enable=false",
    "offsets.topic.replication.factor=1",
    "transaction.state.log.replication.factor=1",
    "transaction.state.log.min.isr=1",
    // One partition, not 50: the bridge's first transactional write waits for
    // this log to be created, which on one small broker took seconds.
    "transaction.state.log.num.partitions=1",
    "share.coordinator.state.topic.replication.factor=1",
    "share.coordinator.state.topic.min.isr=1",
    "group.initial.rebalance.delay.ms=0",
    "log.retention.hours=168",
  ];
  return `${lines.join("\n")}\n`;
}

/**
 * Kafka cluster ids are 16 random bytes in URL-safe base64 without padding.
 * Not one starting with "-": the storage tool would read it as an option and
 * fail ("--cluster-id: expected one argument"), as Kafka's own Uuid avoids too.
 */
export function newClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString("base64url");
    if (!id.startsWith("-")) return id;
  }
}

/** Starts the local Kafka; returns its (plaintext) bootstrap addresses and, for the test profile, its secured listeners. */
export async function startLocalKafka(
  config: StackConfig,
  supervisor: Supervisor,
): Promise<{ brokers: string[]; secured?: SecuredKafkaInfo }> {
  const libs = await ensureKafkaJars(config, supervisor);
  const dir = path.join(config.dataDir, "kafka");
  const logDir = path.join(dir, "data");
  const propertiesFile = path.join(dir, "server.properties");
  mkdirSync(dir, { recursive: true });
  const secured = securedListenersEnabled(config) ? prepareSecuredKafka(config) : undefined;
  writeFileSync(propertiesFile, serverProperties(config, logDir));

  const java = (mainClass: string, args: string[], heap: string) => ({
    name: "kafka",
    command: config.java,
    args: [
      `-Xmx${heap}`,
      "-XX:+UseG1GC",
      "-Djava.awt.headless=true",
      // slf4j-simple: warnings and errors, plus the line that says the broker is up.
      "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
      "-Dorg.slf4j.simpleLogger.log.kafka.server.KafkaRaftServer=info",
      ...(secured ? securedKafkaJvmOptions(config) : []),
      "-cp",
      path.join(libs, "*"),
      mainClass,
      ...args,
    ],
    cwd: dir,
  });

  if (!existsSync(path.join(logDir, "meta.properties"))) {
    say(`formatting the local Kafka log in ${path.relative(config.repoRoot, logDir)}`);
    const code = await supervisor.run(
      java(
        "kafka.tools.StorageTool",
        ["format", "-t", newClusterId(), "-c", propertiesFile, ...(secured ? scramFormatArgs(secured) : [])],
        "256m",
      ),
    );
    if (code !== 0) throw new StackError("Formatting the local Kafka storage failed; see the [kafka] lines above.");
  }

  const proc = supervisor.start({
    ...java("kafka.Kafka", [propertiesFile], "1g"),
    stopTimeoutMs: 30_000,
  });
  const brokers = [`${config.host}:${config.ports.kafka}`];
  await waitUntil("Kafka", () => clusterAnswers(brokers), { timeoutMs: 120_000, proc, intervalMs: 500 });
  if (secured) {
    await applyTestAcls(brokers, secured);
    const issuer = await startOAuthIssuer(path.join(dir, "tls"), config.host);
    secured.oauthTokenEndpointUrl = issuer.tokenEndpointUrl;
  }
  return { brokers, secured };
}
