// Generated clients written to disk for the toolchains to build: one scratch
// folder per test file, removed when the file's tests end.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after } from "node:test";

import type { GeneratedFile } from "../src/index.js";

export function scratchFolder(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `sluice-codegen-${label}-`));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes generated files under scratch/name (executables stay executable) and returns that folder. */
export function writeTree(scratch: string, name: string, files: GeneratedFile[]): string {
  const root = join(scratch, name);
  for (const f of files) {
    const path = join(root, f.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, f.contents);
    if (f.executable) chmodSync(path, 0o755);
  }
  return root;
}
