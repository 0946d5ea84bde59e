// The test profile's secured listeners on the local Kafka, beside its plaintext
// one: SASL_SSL with SCRAM-SHA-512 users (created when the log is formatted) and
// a mutual-TLS listener, both with certificates from a throw-away CA made here
// with openssl, and Kafka's StandardAuthorizer with ACLs that let each Sluice
// principal use every topic but deny the gateway's user one topic. Integration
// tests connect every component through these listeners (stack.json says where).
//
// The plaintext listener and the controller stay open to everything (their
// principal, ANONYMOUS, is a super user), so the rest of the stack and every
// plaintext test behave exactly as without the authorizer.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import kafkajs from "kafkajs";
import type { SecuredKafkaInfo, StackConfig } from "./config.ts";
import { StackError } from "./errors.ts";

// kafkajs is CommonJS: Node's ESM loader sees only some of its names as named exports.
const { AclOperationTypes, AclPermissionTypes, AclResourceTypes, Kafka, logLevel, ResourcePatternTypes } = kafkajs;

/** The topic the gateway's SCRAM user may not use (the ACL-denied case of the tests). */
export const ACL_DENIED_TOPIC = "sluice-acl-denied";

/** The SCRAM-SHA-512 users, one per component (they may be different principals in production too). */
export const SCRAM_USERS = ["sluice-gateway", "sluice-bridge", "sluice-portal"] as const;

/** The common name of the mutual-TLS client certificate, which is its principal (see the mapping rule). */
export const MTLS_PRINCIPAL = "sluice-mtls";

/** Secured listeners run for the test profile with its own Kafka only. */
export function securedListenersEnabled(config: StackConfig): boolean {
  return config.profile === "test" && !config.externalKafkaBrokers;
}

function openssl(args: string[], cwd: string): void {
  try {
    execFileSync("openssl", args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
    throw new StackError(`Making the test certificates with openssl failed (openssl ${args[0]}): ${stderr || (err as Error).message}`);
  }
}

/** openssl req arguments for a new P-256 key in <name>.key (unencrypted) and, per `out`, a CSR or a self-signed certificate. */
function newKeyArgs(name: string, subject: string, out: string[]): string[] {
  return ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", `${name}.key`, "-subj", subject, ...out];
}

/** A key and a certificate signed by ca, valid 30 days. */
function issue(dir: string, name: string, subject: string, extensions: string, ca: { cert: string; key: string }): void {
  writeFileSync(path.join(dir, `${name}.ext`), extensions);
  openssl(newKeyArgs(name, subject, ["-out", `${name}.csr`]), dir);
  openssl(
    [
      "x509",
      "-req",
      "-in",
      `${name}.csr`,
      "-CA",
      ca.cert,
      "-CAkey",
      ca.key,
      "-CAcreateserial",
      "-days",
      "30",
      "-out",
      `${name}.crt`,
      "-extfile",
      `${name}.ext`,
    ],
    dir,
  );
}

/** A self-signed CA, valid 30 days. */
function newCa(dir: string, name: string, subject: string): { cert: string; key: string } {
  openssl(newKeyArgs(name, subject, ["-x509", "-days", "30", "-out", `${name}.pem`]), dir);
  return { cert: `${name}.pem`, key: `${name}.key` };
}

/**
 * The CA, the broker's key store and the clients' certificates under
 * <dataDir>/kafka/tls, and the SCRAM users' passwords (random, mode 600), made
 * once per data dir. Also a second CA the broker does not trust and a client
 * certificate from it, for the "unknown CA" error cases.
 */
export function prepareSecuredKafka(config: StackConfig): SecuredKafkaInfo {
  const dir = path.join(config.dataDir, "kafka", "tls");
  const info: SecuredKafkaInfo = {
    saslSslBrokers: [`${config.host}:${config.ports.kafkaSaslSsl}`],
    mtlsBrokers: [`${config.host}:${config.ports.kafkaMtls}`],
    caFile: path.join(dir, "ca.pem"),
    clientCertFile: path.join(dir, "client.crt"),
    clientKeyFile: path.join(dir, "client.key"),
    untrustedCaFile: path.join(dir, "other-ca.pem"),
    untrustedClientCertFile: path.join(dir, "untrusted-client.crt"),
    untrustedClientKeyFile: path.join(dir, "untrusted-client.key"),
    scramMechanism: "SCRAM-SHA-512",
    users: {},
    aclDeniedTopic: ACL_DENIED_TOPIC,
    deniedUser: "sluice-gateway",
    mtlsPrincipal: MTLS_PRINCIPAL,
  };
  const usersFile = path.join(dir, "scram-users.json");
  if (!existsSync(usersFile)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const ca = newCa(dir, "ca", "/CN=Sluice test CA");
    issue(dir, "broker", "/CN=localhost", "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n", ca);
    // Kafka's PEM key store wants the PKCS#8 key followed by the certificate chain.
    openssl(["pkcs8", "-topk8", "-nocrypt", "-in", "broker.key", "-out", "broker.pk8"], dir);
    writeFileSync(
      path.join(dir, "broker-keystore.pem"),
      readFileSync(path.join(dir, "broker.pk8"), "utf8") + readFileSync(path.join(dir, "broker.crt"), "utf8"),
      {
        mode: 0o600,
      },
    );
    issue(dir, "client", `/CN=${MTLS_PRINCIPAL}`, "extendedKeyUsage=clientAuth\n", ca);
    const other = newCa(dir, "other-ca", "/CN=A CA the broker does not trust");
    issue(dir, "untrusted-client", `/CN=${MTLS_PRINCIPAL}`, "extendedKeyUsage=clientAuth\n", other);
    const users = Object.fromEntries(SCRAM_USERS.map((u) => [u, randomBytes(18).toString("base64url")]));
    writeFileSync(usersFile, JSON.stringify(users), { mode: 0o600 });
  }
  info.users = JSON.parse(readFileSync(usersFile, "utf8"));
  return info;
}

/** server.properties lines for the secured listeners and the authorizer. */
export function securedListenerProperties(config: StackConfig): string[] {
  const dir = path.join(config.dataDir, "kafka", "tls");
  const h = config.host;
  return [
    `listeners=PLAINTEXT://${h}:${config.ports.kafka},CONTROLLER://${h}:${config.ports.kafkaController},SASL_SSL://${h}:${config.ports.kafkaSaslSsl},SSL://${h}:${config.ports.kafkaMtls}`,
    `advertised.listeners=PLAINTEXT://${h}:${config.ports.kafka},SASL_SSL://${h}:${config.ports.kafkaSaslSsl},SSL://${h}:${config.ports.kafkaMtls}`,
    "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL,SSL:SSL",
    "ssl.keystore.type=PEM",
    `ssl.keystore.location=${path.join(dir, "broker-keystore.pem")}`,
    "ssl.truststore.type=PEM",
    `ssl.truststore.location=${path.join(dir, "ca.pem")}`,
    // The SSL listener is the mutual-TLS one: no client certificate, no connection.
    "listener.name.ssl.ssl.client.auth=required",
    // A certificate's principal is its CN (User:sluice-mtls), not the whole DN.
    "ssl.principal.mapping.rules=RULE:^CN=([^,]+).*$/$1/,DEFAULT",
    "sasl.enabled.mechanisms=SCRAM-SHA-512",
    "listener.name.sasl_ssl.sasl.enabled.mechanisms=SCRAM-SHA-512",
    "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;",
    "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
    // The plaintext listener and the controller: everything allowed, as before.
    "super.users=User:ANONYMOUS",
  ];
}

/** StorageTool format arguments that create the SCRAM users. */
export function scramFormatArgs(info: SecuredKafkaInfo): string[] {
  return Object.entries(info.users).flatMap(([name, password]) => ["-S", `SCRAM-SHA-512=[name=${name},password=${password}]`]);
}

/**
 * Every Sluice principal may use every topic, group and the cluster; the
 * gateway's user is denied ACL_DENIED_TOPIC (a deny wins over an allow).
 * Set through the plaintext listener, whose principal is a super user.
 */
export async function applyTestAcls(plaintextBrokers: string[], info: SecuredKafkaInfo): Promise<void> {
  const admin = new Kafka({ clientId: "sluice-stack", brokers: plaintextBrokers, logLevel: logLevel.NOTHING }).admin();
  const principals = [...Object.keys(info.users), info.mtlsPrincipal].map((p) => `User:${p}`);
  const allow = (principal: string, resourceType: kafkajs.AclResourceTypes, resourceName: string) => ({
    resourceType,
    resourceName,
    resourcePatternType: ResourcePatternTypes.LITERAL,
    principal,
    host: "*",
    operation: AclOperationTypes.ALL,
    permissionType: AclPermissionTypes.ALLOW,
  });
  try {
    await admin.connect();
    await admin.createAcls({
      acl: [
        ...principals.flatMap((p) => [
          allow(p, AclResourceTypes.TOPIC, "*"),
          allow(p, AclResourceTypes.GROUP, "*"),
          allow(p, AclResourceTypes.CLUSTER, "kafka-cluster"),
          allow(p, AclResourceTypes.TRANSACTIONAL_ID, "*"),
        ]),
        { ...allow(`User:${info.deniedUser}`, AclResourceTypes.TOPIC, info.aclDeniedTopic), permissionType: AclPermissionTypes.DENY },
      ],
    });
    const topics = await admin.listTopics();
    if (!topics.includes(info.aclDeniedTopic)) await admin.createTopics({ topics: [{ topic: info.aclDeniedTopic, numPartitions: 1 }] });
  } catch (err) {
    throw new StackError(`Setting the test ACLs on the local Kafka failed: ${(err as Error).message}`);
  } finally {
    await admin.disconnect().catch(() => {});
  }
}
