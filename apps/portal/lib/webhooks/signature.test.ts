import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { test } from "node:test";

import { MAX_WEBHOOK_ATTEMPTS, retryDelaySeconds, signPayload, verifySignature } from "./signature";

const secret = "s".repeat(32);

test("the signature is HMAC-SHA256 of '<t>.<body>' in hex, with the timestamp", () => {
  const body = '{"event":"access_request.created"}';
  const mac = createHmac("sha256", secret).update(`1700000000.${body}`).digest("hex");
  assert.equal(signPayload(secret, 1700000000, body), `t=1700000000,v1=${mac}`);
});

test("verification accepts the signed body and refuses a changed body, another secret or an old timestamp", () => {
  const body = '{"a":1}';
  const header = signPayload(secret, 1000, body);
  assert.equal(verifySignature({ secret, header, body, nowSeconds: 1010 }), true);
  assert.equal(verifySignature({ secret, header, body: '{"a":2}', nowSeconds: 1010 }), false);
  assert.equal(verifySignature({ secret: "t".repeat(32), header, body, nowSeconds: 1010 }), false);
  assert.equal(verifySignature({ secret, header, body, nowSeconds: 1000 + 301 }), false);
  assert.equal(verifySignature({ secret, header: "t=1000", body, nowSeconds: 1000 }), false);
  assert.equal(verifySignature({ secret, header: "garbage", body, nowSeconds: 1000 }), false);
});

test("retries back off from 30 s, doubling, capped at an hour", () => {
  assert.deepEqual(
    Array.from({ length: MAX_WEBHOOK_ATTEMPTS }, (_, i) => retryDelaySeconds(i + 1)),
    [30, 60, 120, 240, 480, 960, 1920, 3600],
  );
});
