// What the test stack's secured Kafka listeners are and how to reach them: the
// stack writes it (stack.json's securedKafka) and the test runner hands it to the
// suites as SLUICE_TEST_SECURED_KAFKA. Test-only: nothing at run time imports it.

export interface SecuredKafkaInfo {
  saslSslBrokers: string[];
  mtlsBrokers: string[];
  /** The throw-away CA that signed the broker's and the client's certificates. */
  caFile: string;
  /** The mutual-TLS client certificate and key (principal: mtlsPrincipal). */
  clientCertFile: string;
  clientKeyFile: string;
  /** A CA the broker does not trust, and a client certificate it signed (error cases). */
  untrustedCaFile: string;
  untrustedClientCertFile: string;
  untrustedClientKeyFile: string;
  scramMechanism: "SCRAM-SHA-512";
  /** SCRAM user name → password (random per data dir). */
  users: Record<string, string>;
  /** A topic the ACLs deny to deniedUser. */
  aclDeniedTopic: string;
  deniedUser: string;
  mtlsPrincipal: string;
}

/** The secured listeners from SLUICE_TEST_SECURED_KAFKA; throws, naming the variable, when the stack described none. */
export function securedKafkaFromEnv(env: Record<string, string | undefined> = process.env): SecuredKafkaInfo {
  const raw = env.SLUICE_TEST_SECURED_KAFKA;
  if (!raw)
    throw new Error("SLUICE_TEST_SECURED_KAFKA is not set: run this suite through ./sluice test (it starts the secured listeners).");
  const info = JSON.parse(raw) as SecuredKafkaInfo | null;
  if (!info?.saslSslBrokers?.length || !info.mtlsBrokers?.length) {
    throw new Error("SLUICE_TEST_SECURED_KAFKA describes no secured listeners: the test stack must start them.");
  }
  return info;
}

/** Settings (as environment variables) for SASL_SSL with SCRAM-SHA-512 as user. */
export function scramSettings(info: SecuredKafkaInfo, user: string, password = info.users[user]!): Record<string, string> {
  return {
    KAFKA_SECURITY_PROTOCOL: "SASL_SSL",
    KAFKA_TLS_CA_FILE: info.caFile,
    KAFKA_SASL_MECHANISM: "SCRAM-SHA-512",
    KAFKA_SASL_USERNAME: user,
    KAFKA_SASL_PASSWORD: password,
  };
}

/** Settings (as environment variables) for the mutual-TLS listener with the client certificate. */
export function mtlsSettings(info: SecuredKafkaInfo): Record<string, string> {
  return {
    KAFKA_SECURITY_PROTOCOL: "SSL",
    KAFKA_TLS_CA_FILE: info.caFile,
    KAFKA_TLS_CERT_FILE: info.clientCertFile,
    KAFKA_TLS_KEY_FILE: info.clientKeyFile,
  };
}
