import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, test } from "node:test";

import { open, seal, SecretBoxError } from "./secret-box";

const key = randomBytes(32);

describe("secret box", () => {
  test("round-trips and never shows the plaintext", () => {
    const secret = '{"kty":"EC","d":"very-private-scalar"}';
    const sealed = seal(secret, "kid-1", key);
    assert.match(sealed, /^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    assert.ok(!sealed.includes("very-private"));
    assert.equal(open(sealed, "kid-1", key), secret);
  });

  test("a fresh IV each time", () => {
    assert.notEqual(seal("same", "k", key), seal("same", "k", key));
  });

  test("fails closed on a wrong key, another context, altered data or an unknown version", () => {
    const sealed = seal("secret", "kid-1", key);
    assert.throws(() => open(sealed, "kid-1", randomBytes(32)), SecretBoxError);
    assert.throws(() => open(sealed, "kid-2", key), SecretBoxError);
    const [v, iv, body, tag] = sealed.split(".") as [string, string, string, string];
    const flipped = Buffer.from(body, "base64url");
    flipped[0]! ^= 1;
    assert.throws(() => open([v, iv, flipped.toString("base64url"), tag].join("."), "kid-1", key), SecretBoxError);
    assert.throws(() => open(["v2", iv, body, tag].join("."), "kid-1", key), /unknown format/);
    assert.throws(() => open("v1.abc", "kid-1", key), /malformed/);
  });

  test("refuses a key that is not 32 bytes", () => {
    assert.throws(() => seal("x", "k", randomBytes(16)), /32 bytes/);
  });
});
