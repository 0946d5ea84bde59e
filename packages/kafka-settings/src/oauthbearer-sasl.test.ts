import assert from "node:assert/strict";
import { test } from "node:test";
import type { AuthenticationProviderArgs, SaslAuthenticateArgs } from "kafkajs";
import { forTests, initialResponse, oauthBearerMechanism, refusalStatus } from "./oauthbearer-sasl.ts";

const { framed, unframed } = forTests;

const logger = { debug() {}, info() {}, warn() {}, error() {} } as unknown as AuthenticationProviderArgs["logger"];

/** Runs the authenticator against a broker that answers each message with the next of answers. */
async function exchange(answers: Buffer[], token = async () => ({ value: "t0k3n" })) {
  const sent: Buffer[] = [];
  const saslAuthenticate = async <T>({ request, response }: SaslAuthenticateArgs<T>) => {
    sent.push(unframed(await request.encode()));
    const answer = framed(answers.shift() ?? Buffer.alloc(0));
    if (!response) return;
    return response.parse(await response.decode(answer));
  };
  const mechanism = oauthBearerMechanism(token);
  const args = { host: "b", port: 1, logger, saslAuthenticate } as AuthenticationProviderArgs;
  const outcome = await mechanism
    .authenticationProvider(args)
    .authenticate()
    .then(
      () => undefined,
      (err: Error) => err,
    );
  return { sent, outcome };
}

test("the first message is the GS2 header and the bearer token (RFC 7628)", () => {
  assert.equal(initialResponse("abc").toString(), "n,,\x01auth=Bearer abc\x01\x01");
});

test("an empty answer is success: one message sent", async () => {
  const { sent, outcome } = await exchange([Buffer.alloc(0)]);
  assert.equal(outcome, undefined);
  assert.deepEqual(sent, [initialResponse("t0k3n")]);
});

test("an error answer fails with the broker's status after the %x01 that ends the exchange", async () => {
  const refusal = Buffer.from(JSON.stringify({ status: "invalid_token", scope: "" }));
  const { sent, outcome } = await exchange([refusal]);
  assert.equal(outcome?.name, "KafkaJSSASLAuthenticationError");
  assert.match(outcome!.message, /the broker refused the token \(status invalid_token\)/);
  assert.deepEqual(sent[1], Buffer.from([1]));
});

test("a token error passes through unchanged (it names its setting)", async () => {
  const failing = new Error("KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET: refused");
  const { sent, outcome } = await exchange([], async () => {
    throw failing;
  });
  assert.equal(outcome, failing);
  assert.equal(sent.length, 0);
});

test("bytes travel with kafkajs' int32 length before them", () => {
  assert.deepEqual(framed(Buffer.from("ab")), Buffer.from([0, 0, 0, 2, 0x61, 0x62]));
  assert.deepEqual(unframed(Buffer.from([0, 0, 0, 2, 0x61, 0x62])), Buffer.from("ab"));
  assert.deepEqual(unframed(Buffer.from([0xff, 0xff, 0xff, 0xff])), Buffer.alloc(0));
});

test("refusalStatus: the status when it is a plain word, else unknown", () => {
  assert.equal(refusalStatus(Buffer.from('{"status":"invalid_token"}')), "invalid_token");
  assert.equal(refusalStatus(Buffer.from('{"status":"<script>"}')), "unknown");
  assert.equal(refusalStatus(Buffer.from("not json")), "unknown");
});
