// Language-specific inputs computed in TypeScript before a generator run and
// handed to the template as `params.sluice.extras`.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import type { LanguageId } from "../languages.js";
import type { ApiModel } from "../model.js";
import { messageTypes } from "./typescript-types.js";

/** Built by scripts/prepare-assets.ts (package build and test). */
export const ASSETS_DIR = fileURLToPath(new URL("../../assets/", import.meta.url));

export async function prepare(language: LanguageId, model: ApiModel): Promise<Record<string, unknown>> {
  switch (language) {
    case "typescript":
      return { messageTypes: await messageTypes(model), sdkFiles: await sdkFiles() };
    case "javascript":
      return { sdkBundle: await asset("sdk-browser.js"), sdkVersion: JSON.parse(await asset("manifest.json")).sdkVersion as string };
    default:
      return {};
  }
}

let vendored: Promise<Record<string, string>> | undefined;

/** The SDK's package.json and dist files, keyed by path relative to the vendored package root. */
export function sdkFiles(): Promise<Record<string, string>> {
  vendored ??= (async () => {
    const root = join(ASSETS_DIR, "sdk");
    const files: Record<string, string> = { "package.json": await asset("sdk/package.json") };
    for (const name of (await readdir(join(root, "dist"))).sort()) files[`dist/${name}`] = await readFile(join(root, "dist", name), "utf8");
    return files;
  })();
  vendored.catch(() => (vendored = undefined));
  return vendored;
}

async function asset(relativePath: string): Promise<string> {
  try {
    return await readFile(join(ASSETS_DIR, relativePath), "utf8");
  } catch {
    throw new Error(
      `@sluice/codegen: ${relativePath} is missing from ${ASSETS_DIR}; build the package (pnpm --filter @sluice/codegen build)`,
    );
  }
}
