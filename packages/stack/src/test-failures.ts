// What failed in a step, in a few lines each, for the end of `./sluice test`.
// CI shows only the tail of a run's output; without these excerpts a red run
// says "1 failed" and the failing test's name is somewhere in 400 KB of log.

/** The most lines one failure may contribute (its name, message and first frames). */
const LINES_PER_FAILURE = 12;
/** The most lines one step may contribute in all. */
const LINES_PER_STEP = 60;

export type FailureExtractor = (output: string) => string[];

/** Turbo prefixes each line of a package's task with "@scope/pkg:task: " (never a file name: no dot). */
const TURBO_PREFIX = /^(?:@[\w-]+\/)?[\w-]+:[a-z][\w-]*(?::[a-z][\w-]*)*: /;
const stripTurbo = (line: string) => line.replace(TURBO_PREFIX, "");
const linesOf = (output: string) => output.split(/\r?\n/).map(stripTurbo);

/** A stack frame inside Node itself or a dependency: noise in an excerpt. */
const foreignFrame = (line: string) => /^\s*at /.test(line) && /\(node:|node_modules|^\s*at node:/.test(line);

function capped(blocks: string[][]): string[] {
  const out: string[] = [];
  for (const [i, block] of blocks.entries()) {
    const lines = block.slice(0, LINES_PER_FAILURE);
    if (out.length + lines.length > LINES_PER_STEP) {
      out.push(`… and ${blocks.length - i} more failure(s), in the step's output above`);
      break;
    }
    out.push(...lines);
  }
  return out;
}

/**
 * node --test's spec reporter ends each run with "✖ failing tests:", then per
 * failure a "test at file:line:col" line, the test's name and its error.
 */
export const nodeTestFailures: FailureExtractor = (output) => {
  const lines = linesOf(output);
  const blocks: string[][] = [];
  let inSection = false;
  let current: string[] | undefined;
  for (const line of lines) {
    if (/^✖ failing tests:/.test(line)) {
      inSection = true;
      continue;
    }
    if (!inSection) continue;
    // The section ends where the next package's output (or turbo's own) begins.
    if (/^(ℹ |• |Tasks: |> |\s*Tasks:)/.test(line)) {
      inSection = false;
      current = undefined;
      continue;
    }
    if (/^test at /.test(line)) {
      current = [line];
      blocks.push(current);
    } else if (current && line.trim() !== "" && !foreignFrame(line)) {
      current.push(line);
    }
  }
  return capped(blocks);
};

/**
 * go test -v: each failing test's "--- FAIL" line with what it logged (the
 * lines after its "=== RUN"/"=== CONT" marker), plus panics and build errors.
 */
export const goTestFailures: FailureExtractor = (output) => {
  const logs = new Map<string, string[]>();
  const blocks: string[][] = [];
  let running: string | undefined;
  let panic: string[] | undefined;
  for (const line of linesOf(output)) {
    const marker = /^=== (?:RUN|CONT|PAUSE|NAME)\s+(\S+)/.exec(line);
    if (marker) {
      running = marker[1];
      continue;
    }
    const fail = /^\s*--- FAIL: (\S+)/.exec(line);
    if (fail) {
      blocks.push([line.trim(), ...(logs.get(fail[1]!) ?? [])]);
      continue;
    }
    if (/^panic: |^fatal error: /.test(line)) {
      panic = [line];
      blocks.push(panic);
      continue;
    }
    if (panic && line.trim() !== "") {
      panic.push(line);
      continue;
    }
    // A package that does not build: "pkg/file.go:12:3: undefined: x".
    if (/^\S+\.go:\d+:\d+: /.test(line)) {
      blocks.push([line]);
      continue;
    }
    if (running && /^\s+\S+\.go:\d+: /.test(line)) {
      logs.set(running, [...(logs.get(running) ?? []), line.trimEnd()]);
    } else if (running && /^\s{8,}\S/.test(line) && logs.has(running)) {
      // The continuation lines of a multi-line t.Errorf.
      logs.get(running)!.push(line.trimEnd());
    }
  }
  return capped(blocks);
};

/** Playwright's list reporter: "  1) [chromium] › spec.ts:12:3 › title" and the error under it. */
export const playwrightFailures: FailureExtractor = (output) => {
  const blocks: string[][] = [];
  let current: string[] | undefined;
  for (const line of linesOf(output)) {
    if (/^\s+\d+\) \[/.test(line)) {
      current = [line.trim()];
      blocks.push(current);
    } else if (/^\s+\d+ (failed|flaky|passed|timed out|skipped|did not run)/.test(line)) {
      current = undefined;
    } else if (current && line.trim() !== "" && !foreignFrame(line)) {
      current.push(line.trimEnd());
    }
  }
  return capped(blocks);
};

/** A step without test names (a typecheck, a linter): its last lines. */
export const lastLines =
  (count: number): FailureExtractor =>
  (output) =>
    linesOf(output.trimEnd()).slice(-count);
