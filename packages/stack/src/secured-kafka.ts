// The test profile's secured listeners on the local Kafka, beside its plaintext
// one: SASL_SSL with SCRAM-SHA-512 users (created when the log is formatted), a
// mutual-TLS listener, and SASL_SSL with OAUTHBEARER whose tokens come from a
// test issuer (test-oauth-issuer.ts), all with certificates from a throw-away CA
// made here with openssl; and Kafka's StandardAuthorizer with ACLs that let each
// Sluice principal use every topic but deny the gateway's and the portal's users
// one topic. Integration tests connect every component through these listeners
// (stack.json says where).
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
import {
  OAUTH_AUDIENCE,
  OAUTH_CLIENT,
  OAUTH_FOREIGN_CLIENT,
  OAUTH_ISSUER,
  oauthIssuerFiles,
  prepareOAuthIssuer,
} from "./test-oauth-issuer.ts";

// kafkajs is CommonJS: Node's ESM loader sees only some of its names as named exports.
const { AclOperationTypes, AclPermissionTypes, AclResourceTypes, Kafka, logLevel, ResourcePatternTypes } = kafkajs;

/** The topic the gateway's SCRAM user may not use (the ACL-denied case of the tests). */
export const ACL_DENIED_TOPIC = "sluice-acl-denied";

/** The principals denied ACL_DENIED_TOPIC: the gateway's and the portal's SCRAM users. */
export const ACL_DENIED_USERS = ["sluice-gateway", "sluice-portal"];

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

/**
 * A client certificate signed by ca that expired long ago. `openssl x509` of
 * OpenSSL 3.0 cannot back-date a certificate; `openssl ca` can, with a minimal
 * CA database of its own.
 */
function issueExpired(dir: string, name: string, subject: string, ca: { cert: string; key: string }): void {
  const db = `${name}-ca`;
  writeFileSync(path.join(dir, `${db}.index`), "");
  writeFileSync(path.join(dir, `${db}.serial`), "01\n");
  writeFileSync(
    path.join(dir, `${db}.cnf`),
    [
      "[ca]",
      "default_ca = expired",
      "[expired]",
      `database = ${db}.index`,
      `serial = ${db}.serial`,
      "new_certs_dir = .",
      "default_md = sha256",
      "policy = anything",
      "unique_subject = no",
      "[anything]",
      "commonName = supplied",
      "",
    ].join("\n"),
  );
  writeFileSync(path.join(dir, `${name}.ext`), "extendedKeyUsage=clientAuth\n");
  openssl(newKeyArgs(name, subject, ["-out", `${name}.csr`]), dir);
  openssl(
    [
      "ca",
      "-batch",
      "-notext",
      "-config",
      `${db}.cnf`,
      "-cert",
      ca.cert,
      "-keyfile",
      ca.key,
      "-in",
      `${name}.csr`,
      "-out",
      `${name}.crt`,
      "-startdate",
      "20240101000000Z",
      "-enddate",
      "20240201000000Z",
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
 * certificate from it, for the "unknown CA" error cases, an expired client
 * certificate, and the OAuth issuer's key and clients. The token endpoint's
 * URL is known once it listens (startLocalKafka fills it in).
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
    expiredClientCertFile: path.join(dir, "expired-client.crt"),
    expiredClientKeyFile: path.join(dir, "expired-client.key"),
    scramMechanism: "SCRAM-SHA-512",
    users: {},
    oauthBrokers: [`${config.host}:${config.ports.kafkaOauth}`],
    oauthTokenEndpointUrl: "",
    oauthClients: {},
    oauthClient: OAUTH_CLIENT,
    oauthForeignClient: OAUTH_FOREIGN_CLIENT,
    aclDeniedTopic: ACL_DENIED_TOPIC,
    deniedUsers: ACL_DENIED_USERS,
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
  // Each later addition has its own once-check, so an older data dir gets it too.
  if (!existsSync(info.expiredClientCertFile)) {
    issueExpired(dir, "expired-client", `/CN=${MTLS_PRINCIPAL}`, { cert: "ca.pem", key: "ca.key" });
  }
  info.users = JSON.parse(readFileSync(usersFile, "utf8"));
  info.oauthClients = prepareOAuthIssuer(dir);
  return info;
}

/** server.properties lines for the secured listeners and the authorizer. */
export function securedListenerProperties(config: StackConfig): string[] {
  const dir = path.join(config.dataDir, "kafka", "tls");
  const h = config.host;
  const { kafka, kafkaSaslSsl, kafkaMtls, kafkaOauth } = config.ports;
  const advertised = `PLAINTEXT://${h}:${kafka},SASL_SSL://${h}:${kafkaSaslSsl},SSL://${h}:${kafkaMtls},OAUTH://${h}:${kafkaOauth}`;
  const oauth = "listener.name.oauth.oauthbearer.";
  return [
    `listeners=${advertised},CONTROLLER://${h}:${config.ports.kafkaController}`,
    `advertised.listeners=${advertised}`,
    "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL,SSL:SSL,OAUTH:SASL_SSL",
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
    // OAUTHBEARER over TLS, as managed clusters offer it: Kafka's own validator
    // checks each token's signature against the test issuer's JWKS file, its
    // expiry, issuer and audience; the principal is the token's sub.
    "listener.name.oauth.sasl.enabled.mechanisms=OAUTHBEARER",
    `${oauth}sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;`,
    `${oauth}sasl.server.callback.handler.class=org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler`,
    // The validator's own settings are broker-wide keys: with the listener
    // prefix Kafka 4.1 ignores them. The validator class is named on purpose:
    // the default one, built without a key resolver, falls back to the
    // client-side checks and takes any signature.
    "sasl.oauthbearer.jwt.validator.class=org.apache.kafka.common.security.oauthbearer.BrokerJwtValidator",
    `sasl.oauthbearer.jwks.endpoint.url=${oauthIssuerFiles(dir).jwksUrl}`,
    `sasl.oauthbearer.expected.issuer=${OAUTH_ISSUER}`,
    `sasl.oauthbearer.expected.audience=${OAUTH_AUDIENCE}`,
    "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
    // The plaintext listener and the controller: everything allowed, as before.
    "super.users=User:ANONYMOUS",
  ];
}

/** JVM options of the broker: Kafka only reads OAuth URLs listed in this system property. */
export function securedKafkaJvmOptions(config: StackConfig): string[] {
  const dir = path.join(config.dataDir, "kafka", "tls");
  return [`-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=${oauthIssuerFiles(dir).jwksUrl}`];
}

/** StorageTool format arguments that create the SCRAM users. */
export function scramFormatArgs(info: SecuredKafkaInfo): string[] {
  return Object.entries(info.users).flatMap(([name, password]) => ["-S", `SCRAM-SHA-512=[name=${name},password=${password}]`]);
}

/**
 * Every Sluice principal may use every topic, group and the cluster; the
 * gateway's and the portal's users are denied ACL_DENIED_TOPIC (a deny wins
 * over an allow).
 * Set through the plaintext listener, whose principal is a super user.
 */
export async function applyTestAcls(plaintextBrokers: string[], info: SecuredKafkaInfo): Promise<void> {
  const admin = new Kafka({ clientId: "sluice-stack", brokers: plaintextBrokers, logLevel: logLevel.NOTHING }).admin();
  const principals = [...Object.keys(info.users), info.mtlsPrincipal, info.oauthClient].map((p) => `User:${p}`);
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
        ...info.deniedUsers.map((user) => ({
          ...allow(`User:${user}`, AclResourceTypes.TOPIC, info.aclDeniedTopic),
          permissionType: AclPermissionTypes.DENY,
        })),
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
