// The matcher against the vectors the Go gateway is tested with.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";

import { allows, canonicalPath, covers, parsePattern, type Op, type Pattern, type PermissionsClaim } from "./match";

const vectorsDir = new URL("../../../../packages/protocol/vectors/", import.meta.url);
const permissions = JSON.parse(readFileSync(new URL("permissions.json", vectorsDir), "utf8")) as {
  cases: { permissions: PermissionsClaim; op: Op; path: string; allowed: boolean }[];
  valid_patterns: { pattern: string; canonical: string }[];
  invalid_patterns: { invalid_pattern: string }[];
};
const paths = JSON.parse(readFileSync(new URL("paths.json", vectorsDir), "utf8")) as {
  cases: ({ path: string; canonical: string } | { path: string; error: number })[];
};

const pattern = (entry: string): Pattern => {
  const p = parsePattern(entry);
  assert.ok(p.ok, `${entry}: ${!p.ok && p.reason}`);
  return p.value;
};

describe("permissions vectors", () => {
  for (const c of permissions.cases) {
    test(`${JSON.stringify(c.permissions)} ${c.op} ${c.path} → ${c.allowed}`, () => {
      const path = canonicalPath(c.path);
      assert.ok(path.ok);
      assert.equal(allows(c.permissions, c.op, path.value), c.allowed);
    });
  }
  for (const v of permissions.valid_patterns) {
    test(`valid pattern ${v.pattern}`, () => assert.equal(pattern(v.pattern).canonical, v.canonical));
  }
  for (const v of permissions.invalid_patterns) {
    test(`invalid pattern ${JSON.stringify(v.invalid_pattern)}`, () => assert.equal(parsePattern(v.invalid_pattern).ok, false));
  }
});

describe("path vectors", () => {
  for (const c of paths.cases) {
    test(`path ${JSON.stringify(c.path)}`, () => {
      const parsed = canonicalPath(c.path);
      if ("error" in c) assert.equal(parsed.ok, false);
      else assert.deepEqual(parsed, { ok: true, value: c.canonical });
    });
  }
});

describe("coverage of a requested entry by a grant", () => {
  const cases: [grant: string, requested: string, covered: boolean][] = [
    ["/orders/eu", "/orders/eu", true],
    ["/orders/eu", "/orders/us", false],
    ["/orders/eu", "/orders/eu/*", false],
    ["/orders/*", "/orders/eu", true],
    ["/orders/*", "/orders/eu/x", true],
    ["/orders/*", "/orders/*", true],
    ["/orders/*", "/orders/eu/*", true],
    ["/orders/eu/*", "/orders/*", false],
    ["/orders/*", "/ordersX/eu", false],
    ["/*", "/anything/at/all", true],
    ["/*", "/*", true],
    ["/prices/*", "/*", false],
    ["/prices/BRK.B", "/prices/BRK%2eB", true],
  ];
  for (const [grant, requested, covered] of cases) {
    test(`${grant} covers ${requested}: ${covered}`, () => assert.equal(covers(pattern(grant), pattern(requested)), covered));
  }
});
