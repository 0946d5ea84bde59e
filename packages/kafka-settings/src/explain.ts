// Kafka client failures that a setting causes, told as the setting to fix: a
// refused password, an unknown CA, a host-name mismatch, TLS spoken to a
// plaintext port. Everything else is left to the caller's own message.
import type { KafkaSettings } from "./settings.ts";

/** A failure traced to one setting: the variable to fix and why. */
export interface SettingProblem {
  variable: string;
  message: string;
}

const UNTRUSTED = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_UNTRUSTED",
  "CERT_SIGNATURE_FAILURE",
]);
const EXPIRED = new Set(["CERT_HAS_EXPIRED", "CERT_NOT_YET_VALID"]);

/** The error and its causes (kafkajs wraps retried errors), outermost first. */
function chain(err: unknown): Array<Error & { code?: string; variable?: string }> {
  const out: Array<Error & { code?: string; variable?: string }> = [];
  let e: unknown = err;
  while (e instanceof Error && out.length < 8) {
    out.push(e);
    const next = e as Error & { cause?: unknown; originalError?: unknown };
    e = next.cause ?? next.originalError;
  }
  return out;
}

/**
 * explainKafkaError names the setting behind a kafkajs failure, or returns
 * undefined when the failure is not one a setting explains (an outage, a
 * timeout). The message carries no secret: kafkajs' messages hold none.
 */
export function explainKafkaError(err: unknown, settings: KafkaSettings): SettingProblem | undefined {
  const errors = chain(err);
  const tls = settings.protocol === "SSL" || settings.protocol === "SASL_SSL";
  for (const e of errors) {
    if (e.name === "OAuthTokenError" && e.variable) return { variable: e.variable, message: e.message.replace(/^[A-Z_]+: /, "") };
    if (e.name === "KafkaJSSASLAuthenticationError") {
      if (/not supported by the server/.test(e.message)) {
        return {
          variable: "KAFKA_SASL_MECHANISM",
          message: `the broker does not accept ${settings.sasl?.mechanism ?? "this mechanism"} on this listener`,
        };
      }
      if (settings.sasl?.mechanism === "OAUTHBEARER") {
        return {
          variable: "KAFKA_SASL_OAUTHBEARER_CLIENT_ID",
          message: `the broker refused the token of client ${settings.sasl.clientId} (${e.message})`,
        };
      }
      if (settings.sasl) {
        return {
          variable: "KAFKA_SASL_PASSWORD",
          message: `the broker refused user ${settings.sasl.username} with ${settings.sasl.mechanism}: wrong password or user (${e.message})`,
        };
      }
    }
    if ((e as { type?: string }).type === "UNSUPPORTED_SASL_MECHANISM") {
      return {
        variable: "KAFKA_SASL_MECHANISM",
        message: `the broker does not accept ${settings.sasl?.mechanism ?? "this mechanism"} on this listener`,
      };
    }
    const code = e.code ?? "";
    if (UNTRUSTED.has(code)) {
      return {
        variable: "KAFKA_TLS_CA_FILE",
        message: `the broker's certificate is not signed by a trusted CA (${code}); set the CA that signed it`,
      };
    }
    if (EXPIRED.has(code))
      return { variable: "KAFKA_TLS_CA_FILE", message: `the broker's certificate is expired or not yet valid (${code})` };
    if (code === "ERR_TLS_CERT_ALTNAME_INVALID") {
      return { variable: "KAFKA_TLS_SERVER_NAME", message: `the broker's certificate does not name the host connected to (${e.message})` };
    }
    if (/wrong version number|packet length too long|ERR_SSL_WRONG_VERSION_NUMBER/i.test(`${code} ${e.message}`)) {
      return {
        variable: "KAFKA_SECURITY_PROTOCOL",
        message: `is ${settings.protocol} but the broker does not speak TLS on this port: use PLAINTEXT or SASL_PLAINTEXT`,
      };
    }
    if (tls && /disconnected before secure TLS connection was established/i.test(e.message)) {
      return {
        variable: "KAFKA_SECURITY_PROTOCOL",
        message: `is ${settings.protocol} but the broker ended the connection in the TLS handshake: if this port is plaintext, use PLAINTEXT or SASL_PLAINTEXT`,
      };
    }
    if (/certificate required|bad certificate|unknown ca|certificate unknown|certificate expired|certificate revoked/i.test(e.message)) {
      return {
        variable: "KAFKA_TLS_CERT_FILE",
        message: `the broker refused the client certificate${settings.tls?.cert ? ` in ${settings.tls.cert.file}` : " (none is set)"} (${e.message})`,
      };
    }
  }
  if (!tls && errors.some((e) => /Connection closed by the server|^Closed connection$/.test(e.message))) {
    return {
      variable: "KAFKA_SECURITY_PROTOCOL",
      message: `is ${settings.protocol} and the broker closed the connection: if this port expects TLS, use SSL or SASL_SSL`,
    };
  }
  return undefined;
}

/** describeKafkaError is explainKafkaError as one line (`VARIABLE: why`), or the error's own message. */
export function describeKafkaError(err: unknown, settings: KafkaSettings): string {
  const problem = explainKafkaError(err, settings);
  if (problem) return `${problem.variable}: ${problem.message}`;
  return err instanceof Error ? err.message : String(err);
}
