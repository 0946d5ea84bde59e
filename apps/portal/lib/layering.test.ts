// The layering guard: the domain, the input rules and the shared components sit
// below the HTTP API (lib/api) and the pages (app/), so none of them may import
// from either. A helper both sides need belongs in lib/ (as pagination does).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const portalRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Folders (relative to the portal) whose files must not import from `forbidden`. */
const LOWER_LAYERS = ["lib/domain", "lib/validation", "components"];
const FORBIDDEN = ["lib/api", "app"];

/** Every module specifier of static imports, re-exports and dynamic import() calls. */
export function importSpecifiers(source: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\b[^'"`;]*?\bfrom\s*["']([^"']+)["']/g,
    /\bimport\s*["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const pattern of patterns) for (const m of source.matchAll(pattern)) found.push(m[1]!);
  return found;
}

/** The portal-relative path a specifier points at, or undefined for packages. */
export function resolveSpecifier(fromFile: string, specifier: string): string | undefined {
  if (specifier.startsWith("@/")) return path.posix.normalize(specifier.slice(2));
  if (specifier.startsWith(".")) return path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), specifier));
  return undefined;
}

export function isForbidden(target: string): boolean {
  return FORBIDDEN.some((dir) => target === dir || target.startsWith(`${dir}/`));
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(portalRoot, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.(ts|tsx)$/.test(entry.name)) out.push(rel);
  }
  return out;
}

test("the guard sees every import form and resolves aliases and relative paths", () => {
  const source = [
    'import { a } from "@/lib/api/router";',
    "import type { B } from '../../api/route';",
    'export { c } from "@/app/login/actions";',
    'import "../../api/side-effect";',
    'const d = await import("@/app/page");',
    'import { e } from "../../pagination";',
    'import { z } from "zod";',
  ].join("\n");
  const forbidden = importSpecifiers(source).filter((s) => {
    const target = resolveSpecifier("lib/domain/apis/x.ts", s);
    return target !== undefined && isForbidden(target);
  });
  assert.deepEqual(forbidden.sort(), ["../../api/route", "../../api/side-effect", "@/app/login/actions", "@/app/page", "@/lib/api/router"]);
  assert.equal(isForbidden("lib/api-keys/x"), false);
  assert.equal(isForbidden("application"), false);
});

test("nothing in lib/domain, lib/validation or components imports from lib/api or app/", () => {
  const offenders: string[] = [];
  let scanned = 0;
  for (const dir of LOWER_LAYERS) {
    for (const file of sourceFiles(dir)) {
      scanned++;
      for (const specifier of importSpecifiers(readFileSync(path.join(portalRoot, file), "utf8"))) {
        const target = resolveSpecifier(file, specifier);
        if (target !== undefined && isForbidden(target)) offenders.push(`${file} imports ${specifier}`);
      }
    }
  }
  assert.ok(scanned > 50, `scanned only ${scanned} files; is the portal root right?`);
  assert.deepEqual(offenders, []);
});
