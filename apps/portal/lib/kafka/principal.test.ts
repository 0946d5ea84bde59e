import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import type { KafkaSettings } from "@sluice/kafka-settings";
import { selfSignedCertificate } from "@sluice/kafka-settings/test-support/certificates";

import { describePrincipal } from "./principal";

const password = { password: "pw-secret-1234", passwordSource: { variable: "KAFKA_SASL_PASSWORD" } };

/** A self-signed certificate with subject O=Acme, CN=sluice-portal. */
function certificate(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "principal-"));
  try {
    return readFileSync(selfSignedCertificate(dir, "principal", { subject: "/O=Acme/CN=sluice-portal" }).cert, "utf8");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("describePrincipal: who Kafka sees, never a secret", () => {
  test("SCRAM or PLAIN: the SASL user, named as Kafka's ACLs name it", () => {
    const settings: KafkaSettings = {
      protocol: "SASL_SSL",
      tls: { insecureSkipVerify: false },
      sasl: { mechanism: "SCRAM-SHA-512", username: "sluice-portal", ...password },
    };
    const said = describePrincipal(settings);
    assert.equal(said, "User:sluice-portal (KAFKA_SASL_USERNAME)");
  });

  test("OAUTHBEARER: the OAuth client, whose tokens' subject Kafka uses", () => {
    const said = describePrincipal({
      protocol: "SASL_SSL",
      sasl: {
        mechanism: "OAUTHBEARER",
        tokenEndpointUrl: "https://issuer.example/token",
        clientId: "sluice-oauth",
        clientSecret: "client-secret-5678",
        clientSecretSource: { variable: "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET" },
      },
    });
    assert.equal(said, `the subject of OAuth client "sluice-oauth"'s tokens (KAFKA_SASL_OAUTHBEARER_CLIENT_ID)`);
    assert.ok(!said.includes("client-secret-5678"));
  });

  test("mutual TLS without SASL: the client certificate, its subject most specific first", () => {
    const pem = certificate();
    const said = describePrincipal({
      protocol: "SSL",
      tls: { insecureSkipVerify: false, cert: { file: "/c.pem", pem }, key: { file: "/k.pem", pem: "KEY" } },
    });
    assert.equal(said, "the client certificate's principal (KAFKA_TLS_CERT_FILE, subject CN=sluice-portal,O=Acme)");
  });

  test("SASL decides even when a client certificate is configured", () => {
    const said = describePrincipal({
      protocol: "SASL_SSL",
      tls: { insecureSkipVerify: false, cert: { file: "/c.pem", pem: "not a certificate" }, key: { file: "/k.pem", pem: "KEY" } },
      sasl: { mechanism: "PLAIN", username: "portal", ...password },
    });
    assert.equal(said, "User:portal (KAFKA_SASL_USERNAME)");
  });

  test("a certificate that does not parse is still named, without a subject", () => {
    const said = describePrincipal({
      protocol: "SSL",
      tls: { insecureSkipVerify: false, cert: { file: "/c.pem", pem: "garbage" }, key: { file: "/k.pem", pem: "KEY" } },
    });
    assert.equal(said, "the client certificate's principal (KAFKA_TLS_CERT_FILE)");
  });

  test("neither SASL nor a client certificate: User:ANONYMOUS", () => {
    assert.equal(describePrincipal({ protocol: "PLAINTEXT" }), "User:ANONYMOUS (no SASL and no client certificate)");
    assert.equal(
      describePrincipal({ protocol: "SSL", tls: { insecureSkipVerify: false } }),
      "User:ANONYMOUS (no SASL and no client certificate)",
    );
  });
});
