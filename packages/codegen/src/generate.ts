// Drives @asyncapi/generator (API only, templates kept in this package, so
// nothing is fetched at generation time) and returns the generated files.
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

import { templateContext } from "./context.js";
import { type LanguageId, languageInfo } from "./languages.js";
import { buildModel } from "./model.js";
import { prepare } from "./prepare/index.js";

export interface GeneratedFile {
  /** Relative to the client's root, `/`-separated. */
  path: string;
  contents: string;
  executable?: boolean;
}

/** Where the templates live: packages/codegen/templates/<language>/ (beside src/ and dist/). */
export const TEMPLATES_DIR = fileURLToPath(new URL("../templates/", import.meta.url));

const require = createRequire(import.meta.url);

// The generator keeps process-wide state (log level, env during transpiling)
// and transpiles a template into its own `__transpiled/` folder, so runs are
// serialised, and each template is transpiled once per process.
let queue: Promise<unknown> = Promise.resolve();
const transpiled = new Set<LanguageId>();

/** Generates the whole client for one API (document = AsyncAPI JSON string or object). */
export function generateClient(document: string | object, language: LanguageId): Promise<GeneratedFile[]> {
  languageInfo(language); // unknown language: throw before queueing
  const run = queue.then(() => generateNow(document, language));
  queue = run.catch(() => undefined);
  return run;
}

async function generateNow(document: string | object, language: LanguageId): Promise<GeneratedFile[]> {
  const source = typeof document === "string" ? document : JSON.stringify(document);
  const model = buildModel(source);
  const { default: Generator } = (await import("@asyncapi/generator")) as { default: GeneratorClass };
  const out = await mkdtemp(join(tmpdir(), `sluice-codegen-${language}-`));
  try {
    const templateDir = join(TEMPLATES_DIR, language);
    const generator = new Generator(templateDir, out, {
      forceWrite: true,
      compile: !transpiled.has(language),
      templateParams: { sluice: templateContext(language, model, templateDir, await prepare(language, model)) },
    });
    await generator.generate(source);
    transpiled.add(language);
    return await readTree(out);
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

interface GeneratorClass {
  new (templateDir: string, targetDir: string, options: Record<string, unknown>): { generate(document: string): Promise<void> };
}

async function readTree(root: string): Promise<GeneratedFile[]> {
  const files: GeneratedFile[] = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = join(entry.parentPath, entry.name);
    const mode = (await stat(full)).mode;
    files.push({
      path: relative(root, full).split("\\").join("/"),
      contents: await readFile(full, "utf8"),
      ...(mode & 0o100 ? { executable: true } : {}),
    });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** @internal for tests: the resolved generator package (proves it is installed). */
export const generatorPackage = () => require.resolve("@asyncapi/generator/package.json");
