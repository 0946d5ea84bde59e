import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { tokenExpiry } from "./token.js";

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

describe("tokenExpiry", () => {
  it("reads exp (seconds) as ms, without verifying", () => {
    const token = `${b64url({ alg: "ES256", kid: "k" })}.${b64url({ sub: "app", exp: 1795003600, note: "é?>" })}.sig`;
    assert.equal(tokenExpiry(token), 1795003600_000);
  });
  it("is undefined for something that is not a JWT or has no exp", () => {
    assert.equal(tokenExpiry("opaque"), undefined);
    assert.equal(tokenExpiry("a.%%%.c"), undefined);
    assert.equal(tokenExpiry(`${b64url({})}.${b64url({ sub: "x" })}.s`), undefined);
  });
});
