// Who Kafka sees when the portal connects, as far as the portal's own settings
// tell it, so an "ACLs deny the portal" message names the principal an operator
// must grant. Names and the setting they come from only, never a secret.
import { X509Certificate } from "node:crypto";
import type { KafkaSettings } from "@sluice/kafka-settings";

/**
 * describePrincipal tells the principal of a connection made with these settings.
 * SASL decides it when configured (even with a client certificate); without SASL a
 * client certificate does; with neither, Kafka calls the connection User:ANONYMOUS.
 */
export function describePrincipal(settings: KafkaSettings): string {
  const { sasl, tls } = settings;
  if (sasl?.mechanism === "OAUTHBEARER") {
    // Kafka names the principal by the token's subject claim, which the issuer
    // chooses (often, not always, the client id).
    return `the subject of OAuth client "${sasl.clientId}"'s tokens (KAFKA_SASL_OAUTHBEARER_CLIENT_ID)`;
  }
  if (sasl) return `User:${sasl.username} (KAFKA_SASL_USERNAME)`;
  if (tls?.cert) {
    const subject = certificateSubject(tls.cert.pem);
    return `the client certificate's principal (KAFKA_TLS_CERT_FILE${subject ? `, subject ${subject}` : ""})`;
  }
  return "User:ANONYMOUS (no SASL and no client certificate)";
}

/**
 * The certificate's subject in RFC 2253 order (most specific first, as Kafka's
 * default SSL principal prints it), or undefined when the PEM does not parse.
 */
function certificateSubject(pem: string): string | undefined {
  try {
    return new X509Certificate(pem).subject.split("\n").reverse().join(",");
  } catch {
    return undefined;
  }
}
