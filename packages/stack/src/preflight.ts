// Checks that fail before anything starts, each with one message saying what to do.
import { execFile } from "node:child_process";
import net from "node:net";
import { promisify } from "node:util";
import type { StackConfig } from "./config.ts";
import { StackError } from "./errors.ts";
import { securedListenersEnabled } from "./secured-kafka.ts";

const execFileAsync = promisify(execFile);

const PORT_OWNERS: Record<keyof StackConfig["ports"], { label: string; env: string }> = {
  portal: { label: "the portal", env: "SLUICE_PORTAL_PORT" },
  gateway: { label: "the gateway", env: "SLUICE_GATEWAY_PORT" },
  bridge: { label: "the bridge", env: "SLUICE_BRIDGE_PORT" },
  postgres: { label: "the embedded PostgreSQL", env: "SLUICE_POSTGRES_PORT" },
  kafka: { label: "the local Kafka broker", env: "SLUICE_KAFKA_PORT" },
  kafkaController: { label: "the local Kafka controller", env: "SLUICE_KAFKA_CONTROLLER_PORT" },
  kafkaSaslSsl: { label: "the local Kafka's SASL_SSL listener", env: "SLUICE_KAFKA_SASL_SSL_PORT" },
  kafkaMtls: { label: "the local Kafka's mutual-TLS listener", env: "SLUICE_KAFKA_MTLS_PORT" },
  kafkaOauth: { label: "the local Kafka's OAUTHBEARER listener", env: "SLUICE_KAFKA_OAUTH_PORT" },
  schemaRegistry: { label: "the local schema registry", env: "SLUICE_SCHEMA_REGISTRY_PORT" },
  schemaRegistryManagement: { label: "the local schema registry's management interface", env: "SLUICE_SCHEMA_REGISTRY_MANAGEMENT_PORT" },
};

function canListen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** The ports this start will open, given which components run locally. */
export function portsToOpen(config: StackConfig): (keyof StackConfig["ports"])[] {
  const wanted: (keyof StackConfig["ports"])[] = ["portal", "gateway", "bridge"];
  if (!config.externalDatabaseUrl) wanted.push("postgres");
  if (!config.externalKafkaBrokers) wanted.push("kafka", "kafkaController");
  if (securedListenersEnabled(config)) wanted.push("kafkaSaslSsl", "kafkaMtls", "kafkaOauth");
  if (!config.externalSchemaRegistryUrl) wanted.push("schemaRegistry", "schemaRegistryManagement");
  return wanted;
}

export async function assertPortsFree(config: StackConfig): Promise<void> {
  const busy: string[] = [];
  for (const key of portsToOpen(config)) {
    const port = config.ports[key];
    // A service on 0.0.0.0 or on 127.0.0.1 both block us; test both.
    if (!(await canListen(config.host, port)) || !(await canListen("0.0.0.0", port))) {
      const owner = PORT_OWNERS[key];
      busy.push(`port ${port} (${owner.label}; set ${owner.env} to use another)`);
    }
  }
  if (busy.length > 0) {
    throw new StackError(
      `Cannot start: ${busy.join(", ")} ${busy.length === 1 ? "is" : "are"} already in use. ` +
        `Stop whatever listens there (see: ss -ltnp) — maybe another Sluice stack — or choose free ports.`,
    );
  }
}

/**
 * The major version `java -version` reports ("1.8" is 8), NaN when it names
 * none; throws the spawn error (ENOENT when there is no such binary).
 */
export async function javaMajorVersion(java: string): Promise<number> {
  const { stdout, stderr } = await execFileAsync(java, ["-version"], { timeout: 20_000 });
  const match = `${stderr}${stdout}`.match(/version "(\d+)(?:\.(\d+))?/);
  return match ? (match[1] === "1" ? Number(match[2]) : Number(match[1])) : Number.NaN;
}

/** Java 17+ is needed only for the local Kafka. */
export async function assertJava(config: StackConfig): Promise<void> {
  const hint =
    "The local Kafka needs Java 17 or newer: install it (Debian: apt-get install -y openjdk-17-jre-headless), " +
    "set JAVA_HOME, or set KAFKA_BROKERS=host:port to use an existing Kafka.";
  let major: number;
  try {
    major = await javaMajorVersion(config.java);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new StackError(
      code === "ENOENT" ? `Java not found (${config.java}). ${hint}` : `Running ${config.java} -version failed. ${hint}`,
    );
  }
  if (!(major >= 17)) {
    throw new StackError(`Found Java ${Number.isNaN(major) ? "of unknown version" : major} at ${config.java}. ${hint}`);
  }
}
