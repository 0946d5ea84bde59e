import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { goTestFailures, lastLines, nodeTestFailures, playwrightFailures } from "./test-failures.ts";

function inTempDir<T>(files: Record<string, string>, run: (dir: string) => T): T {
  const dir = mkdtempSync(path.join(tmpdir(), "sluice-failures-"));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
    return run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("node --test: each failing test's location, name and message, without Node's own frames", () => {
  const output = inTempDir(
    {
      "a.test.mjs": [
        'import test from "node:test"; import assert from "node:assert";',
        'test("outer", async (t) => { await t.test("inner fails", () => { assert.equal(1, 2, "one is not two"); }); });',
        'test("passes", () => {});',
      ].join("\n"),
    },
    (dir) => {
      // Without NODE_TEST_CONTEXT, which would make the child report to this test runner instead of printing.
      const { NODE_TEST_CONTEXT: _, ...env } = process.env;
      const run = spawnSync(process.execPath, ["--test", "--test-reporter=spec", "a.test.mjs"], { cwd: dir, encoding: "utf8", env });
      return run.stdout + run.stderr;
    },
  );
  // As turbo prints it, with every line prefixed by the package's task.
  const excerpt = nodeTestFailures(
    output
      .split("\n")
      .map((line) => `@sluice/demo:test:integration: ${line}`)
      .join("\n"),
  );
  const text = excerpt.join("\n");
  assert.match(text, /^test at a\.test\.mjs:2:\d+$/m);
  assert.match(text, /inner fails/);
  assert.match(text, /one is not two/);
  assert.doesNotMatch(text, /node:internal|@sluice\/demo/);
  assert.doesNotMatch(text, /passes/);
});

test("node --test: a passing run has nothing to show", () => {
  assert.deepEqual(nodeTestFailures("✔ passes (1ms)\nℹ pass 1\nℹ fail 0\n"), []);
});

test("go test -v: the failing tests with what they logged, not the passing ones", () => {
  const output = inTempDir(
    {
      "go.mod": "module failing\n\ngo 1.22\n",
      "a_test.go": [
        "package failing",
        'import "testing"',
        'func TestGood(t *testing.T) { t.Log("fine") }',
        "func TestBad(t *testing.T) {",
        '\tt.Run("sub", func(t *testing.T) { t.Errorf("got %d,\\nwant %d", 1, 2) })',
        "}",
      ].join("\n"),
    },
    (dir) => {
      const run = spawnSync("go", ["test", "-v", "./..."], { cwd: dir, encoding: "utf8", env: { ...process.env, GOTOOLCHAIN: "local" } });
      return run.stdout + run.stderr;
    },
  );
  const text = goTestFailures(output).join("\n");
  assert.match(text, /--- FAIL: TestBad\/sub/);
  assert.match(text, /a_test\.go:5: got 1,\n\s+want 2/);
  assert.doesNotMatch(text, /TestGood|fine/);
});

test("go test: a panic and a build error are shown", () => {
  const text = goTestFailures(
    ["=== RUN   TestX", "panic: runtime error: index out of range", "", "goroutine 7 [running]:", "x_test.go:12:3: undefined: y"].join(
      "\n",
    ),
  ).join("\n");
  assert.match(text, /panic: runtime error/);
  assert.match(text, /x_test\.go:12:3: undefined: y/);
});

test("Playwright: each numbered failure with its error", () => {
  const output = [
    "Running 3 tests using 1 worker",
    "  ✓  1 [chromium] › specs/a.spec.ts:3:1 › works (1.2s)",
    "  ✘  2 [chromium] › specs/b.spec.ts:9:5 › shows the token once (5.0s)",
    "",
    "  1) [chromium] › specs/b.spec.ts:9:5 › shows the token once ─────────",
    "",
    "    Error: expect(locator).toBeVisible() failed",
    "",
    "    Locator: getByText('Copy it now')",
    "      at /repo/e2e/specs/b.spec.ts:14:7",
    "      at /repo/e2e/node_modules/playwright/lib/x.js:1:1",
    "",
    "  1 failed",
    "    [chromium] › specs/b.spec.ts:9:5 › shows the token once",
    "  2 passed (9.0s)",
  ].join("\n");
  const text = playwrightFailures(output).join("\n");
  assert.match(text, /^1\) \[chromium\] › specs\/b\.spec\.ts:9:5 › shows the token once/m);
  assert.match(text, /toBeVisible\(\) failed/);
  assert.match(text, /b\.spec\.ts:14:7/);
  assert.doesNotMatch(text, /node_modules|works/);
});

test("many failures are capped, saying how many more there are", () => {
  const output = Array.from({ length: 40 }, (_, i) => `=== RUN   Test${i}\n    x_test.go:${i}: broke\n--- FAIL: Test${i} (0.00s)`).join(
    "\n",
  );
  const excerpt = goTestFailures(output);
  assert.ok(excerpt.length <= 61, `${excerpt.length} lines`);
  assert.match(excerpt.at(-1)!, /and 10 more failure\(s\)/);
});

test("the cap keeps its note of how many more when the failures are long", () => {
  const long = (i: number) => [
    `=== RUN   Test${i}`,
    ...Array.from({ length: 6 }, (_, j) => `    x_test.go:${j}: line ${j}`),
    `--- FAIL: Test${i} (0.00s)`,
  ];
  const excerpt = goTestFailures(Array.from({ length: 12 }, (_, i) => long(i).join("\n")).join("\n"));
  assert.ok(excerpt.length <= 61, `${excerpt.length} lines`);
  assert.match(excerpt.at(-1)!, /and 4 more failure\(s\)/);
});

test("a step without test names shows its last lines", () => {
  assert.deepEqual(lastLines(2)("a\nb\nc\n"), ["b", "c"]);
});
