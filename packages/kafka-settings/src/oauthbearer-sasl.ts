// The OAUTHBEARER SASL exchange for kafkajs. kafkajs' own authenticator takes
// the broker's first answer as success, but a broker that refuses a token
// answers with an error JSON (RFC 7628 §3.2.2) and fails the exchange only
// after the client's %x01; the client then sees its next request fail with no
// cause ("No brokers in the broker pool"), and no setting can be named. This
// one reads that answer and fails at once with the broker's status, as a
// KafkaJSSASLAuthenticationError (not retried; explainKafkaError names it).
import kafkajs, { type AuthenticationProviderArgs, type Mechanism } from "kafkajs";

// kafkajs is CommonJS: Node's ESM loader sees only some of its names as named
// exports. Its typings declare this error's constructor without the message it takes.
const SaslAuthenticationError = kafkajs.KafkaJSSASLAuthenticationError as unknown as new (message: string) => Error;

/** The client's first message: the GS2 header and the bearer token (RFC 7628 §3.1). */
export function initialResponse(token: string): Buffer {
  return Buffer.from(`n,,\x01auth=Bearer ${token}\x01\x01`);
}

/** The status of a broker's error answer ({"status":"invalid_token",…}), or "unknown". */
export function refusalStatus(answer: Buffer): string {
  try {
    const status = (JSON.parse(answer.toString("utf8")) as { status?: unknown }).status;
    if (typeof status === "string" && /^[\w.-]{1,64}$/.test(status)) return status;
  } catch {
    // not JSON: no status to report
  }
  return "unknown";
}

// kafkajs carries SASL bytes as Kafka BYTES: an int32 length, then the data.
function framed(data: Buffer): Buffer {
  const out = Buffer.alloc(4 + data.length);
  out.writeInt32BE(data.length, 0);
  data.copy(out, 4);
  return out;
}
function unframed(raw: Buffer): Buffer {
  const length = raw.length >= 4 ? raw.readInt32BE(0) : -1;
  return length > 0 ? raw.subarray(4, 4 + length) : Buffer.alloc(0);
}
const asBytes = { decode: unframed, parse: (data: Buffer) => data };

export const forTests = { framed, unframed };

/** A kafkajs SASL mechanism sending token()'s tokens; token's own errors (OAuthTokenError) pass through. */
export function oauthBearerMechanism(token: () => Promise<{ value: string }>): Mechanism {
  return {
    mechanism: "oauthbearer",
    authenticationProvider: ({ host, port, logger, saslAuthenticate }: AuthenticationProviderArgs) => ({
      authenticate: async () => {
        const { value } = await token();
        let answer: Buffer | undefined;
        try {
          answer = (await saslAuthenticate({ request: { encode: () => framed(initialResponse(value)) }, response: asBytes })) ?? undefined;
        } catch (err) {
          throw new SaslAuthenticationError(`SASL OAUTHBEARER authentication failed: ${(err as Error).message}`);
        }
        if (answer && answer.length > 0) {
          // Finish the exchange as the RFC asks; the broker fails it and may close the connection.
          await saslAuthenticate({ request: { encode: () => framed(Buffer.from([1])) } }).catch(() => {});
          throw new SaslAuthenticationError(
            `SASL OAUTHBEARER authentication failed: the broker refused the token (status ${refusalStatus(answer)})`,
          );
        }
        logger.debug("SASL OAUTHBEARER authentication successful", { broker: `${host}:${port}` });
      },
    }),
  };
}
