import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { AppError } from "../errors";
import { buildClaims, issuedAtSeconds, permissionsWithinGrants, revokeAllNotBefore } from "./claims";

const grants = [
  { endpointPattern: "/prices/*", operations: ["subscribe"] },
  { endpointPattern: "/orders/eu", operations: ["subscribe", "publish"] },
  { endpointPattern: "/chat/*", operations: ["publish"] },
];

function refused(fn: () => unknown): { field: string; message: string }[] {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof AppError);
    assert.equal(err.status, 422);
    return err.fieldErrors;
  }
  assert.fail("expected a refusal");
}

describe("permissions within grants", () => {
  test("entries covered by grants pass, canonicalised", () => {
    assert.deepEqual(
      permissionsWithinGrants(
        { sub: ["/prices/AAPL", "/prices/x/*", "/prices/*", "/orders/eu"], pub: ["/chat/lobby"], all: ["/orders/eu"] },
        grants,
      ),
      {
        sub: ["/prices/AAPL", "/prices/x/*", "/prices/*", "/orders/eu"],
        pub: ["/chat/lobby"],
        all: ["/orders/eu"],
      },
    );
    assert.deepEqual(permissionsWithinGrants({ sub: ["/prices/BRK%2eB"] }, grants).sub, ["/prices/BRK.B"]);
  });

  test("more than the grants is refused, naming each entry and what is missing", () => {
    const errors = refused(() =>
      permissionsWithinGrants({ sub: ["/prices/AAPL", "/*"], pub: ["/prices/AAPL"], all: ["/chat/lobby"] }, grants),
    );
    assert.deepEqual(
      errors.map((e) => e.field),
      ["permissions.sub.1", "permissions.pub.0", "permissions.all.0"],
    );
    assert.match(errors[1]!.message, /no grant to publish \/prices\/AAPL/);
    assert.match(errors[2]!.message, /no grant to subscribe \/chat\/lobby/);
  });

  test("an exact grant does not cover a wildcard below it", () => {
    const errors = refused(() => permissionsWithinGrants({ sub: ["/orders/eu/*"] }, grants));
    assert.equal(errors[0]!.field, "permissions.sub.0");
  });

  test("invalid entries are refused with the gateway's reason", () => {
    const errors = refused(() => permissionsWithinGrants({ sub: ["/prices/a*"] }, grants));
    assert.match(errors[0]!.message, /only as the whole last segment/);
  });

  test("no grants: nothing can be minted", () => {
    refused(() => permissionsWithinGrants({ sub: ["/prices/AAPL"] }, []));
  });
});

describe("revoke-all in whole seconds", () => {
  test("a token minted in the same second as revoke-all but before it is revoked; one after it is not", () => {
    const t = 1_795_000_000_400;
    const before = issuedAtSeconds(t, null);
    const notBefore = revokeAllNotBefore(t + 100, null);
    const after = issuedAtSeconds(t + 200, notBefore);
    const nbf = notBefore.getTime() / 1000;
    assert.ok(before < nbf, "earlier token revoked");
    assert.ok(after >= nbf, "later token accepted");
    assert.equal(after - Math.floor((t + 200) / 1000), 1, "iat at most one second ahead");
  });

  test("tokens_not_before never moves backwards", () => {
    const later = new Date(1_795_000_010_000);
    assert.equal(revokeAllNotBefore(1_795_000_000_000, later).getTime(), later.getTime());
  });
});

test("claims are exactly PROTOCOL.md's", () => {
  const claims = buildClaims({
    issuer: "sluice",
    audience: "sluice-gateway",
    appId: "app",
    jti: "j",
    iat: 100,
    lifetimeSeconds: 60,
    permissions: { sub: ["/a/b"], pub: [], all: [] },
  });
  assert.deepEqual(claims, {
    iss: "sluice",
    aud: "sluice-gateway",
    sub: "app",
    iat: 100,
    exp: 160,
    jti: "j",
    permissions: { sub: ["/a/b"], pub: [], all: [] },
  });
});
