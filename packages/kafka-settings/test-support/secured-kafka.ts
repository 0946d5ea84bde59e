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
  /** A client certificate from the trusted CA that expired long ago (same principal as clientCertFile). */
  expiredClientCertFile: string;
  expiredClientKeyFile: string;
  scramMechanism: "SCRAM-SHA-512";
  /** SCRAM user name → password (random per data dir). */
  users: Record<string, string>;
  /** SASL_SSL with OAUTHBEARER: tokens from the test issuer's client-credentials endpoint. */
  oauthBrokers: string[];
  oauthTokenEndpointUrl: string;
  /** OAuth client id → secret (random per data dir). */
  oauthClients: Record<string, string>;
  /** The client whose tokens the broker accepts (principal User:<id>). */
  oauthClient: string;
  /** A client whose tokens are for another audience: the broker refuses them. */
  oauthForeignClient: string;
  /** A topic the ACLs deny to each of deniedUsers (SCRAM users). */
  aclDeniedTopic: string;
  deniedUsers: string[];
  mtlsPrincipal: string;
}

/** The secured listeners from SLUICE_TEST_SECURED_KAFKA; throws, naming the variable, when the stack described none. */
export function securedKafkaFromEnv(env: Record<string, string | undefined> = process.env): SecuredKafkaInfo {
  const raw = env.SLUICE_TEST_SECURED_KAFKA;
  if (!raw)
    throw new Error("SLUICE_TEST_SECURED_KAFKA is not set: run this suite through ./sluice test (it starts the secured listeners).");
  const info = JSON.parse(raw) as SecuredKafkaInfo | null;
  if (!info?.saslSslBrokers?.length || !info.mtlsBrokers?.length || !info.oauthBrokers?.length) {
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

/** Settings (as environment variables) for the OAUTHBEARER listener as an OAuth client of the test issuer. */
export function oauthSettings(
  info: SecuredKafkaInfo,
  client = info.oauthClient,
  secret = info.oauthClients[client]!,
): Record<string, string> {
  return {
    KAFKA_SECURITY_PROTOCOL: "SASL_SSL",
    KAFKA_TLS_CA_FILE: info.caFile,
    KAFKA_SASL_MECHANISM: "OAUTHBEARER",
    KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL: info.oauthTokenEndpointUrl,
    KAFKA_SASL_OAUTHBEARER_CLIENT_ID: client,
    KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET: secret,
  };
}
