import assert from "node:assert/strict";
import { test } from "node:test";
import { createRequire } from "node:module";
import { describeKafkaError, explainKafkaError } from "./explain.ts";
import { OAuthTokenError } from "./oauth.ts";
import type { KafkaSettings } from "./settings.ts";

const scram: KafkaSettings = {
  protocol: "SASL_SSL",
  tls: { insecureSkipVerify: false },
  sasl: { mechanism: "SCRAM-SHA-512", username: "gw", password: "pw-secret", passwordSource: { variable: "KAFKA_SASL_PASSWORD" } },
};
const plaintext: KafkaSettings = { protocol: "PLAINTEXT" };
// kafkajs spreads its error classes into module.exports, which ESM named imports cannot see.
const { KafkaJSConnectionError, KafkaJSNumberOfRetriesExceeded, KafkaJSSASLAuthenticationError } = createRequire(import.meta.url)(
  "kafkajs",
) as typeof import("kafkajs");
// kafkajs' typings omit this constructor's message argument.
const saslError = (message: string) => new (KafkaJSSASLAuthenticationError as unknown as new (m: string) => Error)(message);
const conn = (message: string, code?: string) => new KafkaJSConnectionError(`Connection error: ${message}`, { code } as never);

const cases: Array<[string, unknown, KafkaSettings, string | undefined]> = [
  ["wrong password", saslError("SASL SCRAM SHA512 authentication failed, invalid credentials"), scram, "KAFKA_SASL_PASSWORD"],
  ["wrong mechanism", saslError("SASL SCRAM-SHA-512 mechanism is not supported by the server"), scram, "KAFKA_SASL_MECHANISM"],
  ["unknown CA", conn("self-signed certificate in certificate chain", "SELF_SIGNED_CERT_IN_CHAIN"), scram, "KAFKA_TLS_CA_FILE"],
  ["expired certificate", conn("certificate has expired", "CERT_HAS_EXPIRED"), scram, "KAFKA_TLS_CA_FILE"],
  [
    "host-name mismatch",
    conn("Hostname/IP does not match certificate's altnames", "ERR_TLS_CERT_ALTNAME_INVALID"),
    scram,
    "KAFKA_TLS_SERVER_NAME",
  ],
  ["TLS to a plaintext port", conn("wrong version number", "ERR_SSL_WRONG_VERSION_NUMBER"), scram, "KAFKA_SECURITY_PROTOCOL"],
  ["client certificate refused", conn("sslv3 alert bad certificate", "ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE"), scram, "KAFKA_TLS_CERT_FILE"],
  ["plaintext to a TLS port", new KafkaJSConnectionError("Connection closed by the server"), plaintext, "KAFKA_SECURITY_PROTOCOL"],
  [
    "token endpoint refused",
    new OAuthTokenError("token endpoint https://idp/token refused client c with HTTP 401", 401),
    scram,
    "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL",
  ],
  ["an outage is not a setting", conn("connect ECONNREFUSED 127.0.0.1:9092", "ECONNREFUSED"), scram, undefined],
  ["closed while on TLS is not the protocol", new KafkaJSConnectionError("Connection closed by the server"), scram, undefined],
];

for (const [name, err, settings, variable] of cases) {
  test(`explain: ${name}`, () => {
    assert.equal(explainKafkaError(err, settings)?.variable, variable);
    const wrapped = new KafkaJSNumberOfRetriesExceeded(err as Error, { retryCount: 3, retryTime: 100 });
    assert.equal(explainKafkaError(wrapped, settings)?.variable, variable, "found through kafkajs' retry wrapper too");
    const line = describeKafkaError(err, settings);
    if (variable) assert.ok(line.startsWith(`${variable}: `), line);
    assert.ok(!line.includes("pw-secret"), line);
  });
}
