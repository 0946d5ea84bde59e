// Unit tests: no database needed.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { databaseUrlFromEnv } from "./client.ts";

const packageDir = fileURLToPath(new URL("..", import.meta.url));

test("databaseUrlFromEnv fails fast and says what to set", () => {
  assert.throws(() => databaseUrlFromEnv({}), /DATABASE_URL is not set/);
  assert.equal(databaseUrlFromEnv({ DATABASE_URL: "postgres://x" }), "postgres://x");
});

// A schema.ts change without its migration would ship a database that differs from
// what the code expects. drizzle-kit compares the schema with the last snapshot.
test("the committed migrations match schema.ts", () => {
  // drizzle-kit wants an output folder relative to the package, so the copy lives inside it.
  const scratch = mkdtempSync(path.join(packageDir, ".drift-"));
  try {
    const out = path.join(scratch, "migrations");
    cpSync(path.join(packageDir, "migrations"), out, { recursive: true });
    const before = readdirSync(out).sort();
    const log = execFileSync(
      path.join(packageDir, "node_modules/.bin/drizzle-kit"),
      [
        "generate",
        "--dialect",
        "postgresql",
        "--schema",
        "./src/schema.ts",
        "--casing",
        "snake_case",
        "--out",
        `./${path.relative(packageDir, out)}`,
      ],
      { cwd: packageDir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
    );
    assert.deepEqual(
      readdirSync(out).sort(),
      before,
      `schema.ts has changes without a migration; run pnpm --filter @sluice/db generate\n${log}`,
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
