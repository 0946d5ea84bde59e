// The settings as the part of a kafkajs KafkaConfig they decide: ssl and sasl.
import type { ConnectionOptions } from "node:tls";
import type { KafkaConfig } from "kafkajs";
import { createOAuthBearerProvider, type TokenProviderOptions } from "./oauth.ts";
import { oauthBearerMechanism } from "./oauthbearer-sasl.ts";
import { type Env, type KafkaSettings, loadKafkaSettings } from "./settings.ts";

export interface ClientConfigOptions extends TokenProviderOptions {
  /** Where the loud warning of KAFKA_TLS_INSECURE_SKIP_VERIFY goes; console.error by default. */
  warn?: (message: string) => void;
}

export const INSECURE_WARNING =
  "WARNING: KAFKA_TLS_INSECURE_SKIP_VERIFY=true: the Kafka brokers' TLS certificates are NOT verified; anyone on the network path can impersonate them. Set KAFKA_TLS_CA_FILE instead.";

/**
 * kafkaClientConfig turns settings into kafkajs' ssl and sasl options. For
 * PLAINTEXT it returns {}, so a config spread with it is exactly today's.
 */
export function kafkaClientConfig(settings: KafkaSettings, options: ClientConfigOptions = {}): Pick<KafkaConfig, "ssl" | "sasl"> {
  const config: Pick<KafkaConfig, "ssl" | "sasl"> = {};
  const { tls, sasl } = settings;
  if (tls) {
    const ssl: ConnectionOptions = {};
    if (tls.ca) ssl.ca = tls.ca.pem;
    if (tls.cert && tls.key) {
      ssl.cert = tls.cert.pem;
      ssl.key = tls.key.pem;
    }
    if (tls.serverName) ssl.servername = tls.serverName;
    if (tls.insecureSkipVerify) {
      ssl.rejectUnauthorized = false;
      (options.warn ?? console.error)(INSECURE_WARNING);
    }
    config.ssl = Object.keys(ssl).length === 0 ? true : ssl;
  }
  if (sasl) {
    switch (sasl.mechanism) {
      case "PLAIN":
        config.sasl = { mechanism: "plain", username: sasl.username, password: sasl.password };
        break;
      case "SCRAM-SHA-256":
        config.sasl = { mechanism: "scram-sha-256", username: sasl.username, password: sasl.password };
        break;
      case "SCRAM-SHA-512":
        config.sasl = { mechanism: "scram-sha-512", username: sasl.username, password: sasl.password };
        break;
      case "OAUTHBEARER":
        config.sasl = oauthBearerMechanism(createOAuthBearerProvider(sasl, options));
        break;
    }
  }
  return config;
}

/** kafkaClientConfigFromEnv is loadKafkaSettings then kafkaClientConfig: what most call sites want. */
export function kafkaClientConfigFromEnv(env: Env = process.env, options: ClientConfigOptions = {}): Pick<KafkaConfig, "ssl" | "sasl"> {
  return kafkaClientConfig(loadKafkaSettings(env), options);
}
