// Prepares what generated TypeScript and browser clients embed, from the
// workspace's built @sluice/sdk (turbo builds it first):
//   assets/sdk/           the SDK's dist (.js + .d.ts, no source maps) and a package.json,
//                         vendored into each TypeScript client as vendor/sluice-sdk
//   assets/sdk-browser.js the SDK bundled into one IIFE (global `Sluice`) for the browser page
// Runs at build time (and before tests), never at generation time.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { build } from "esbuild";

const assets = fileURLToPath(new URL("../assets/", import.meta.url));
let entry: string;
try {
  entry = fileURLToPath(import.meta.resolve("@sluice/sdk"));
  readFileSync(entry);
} catch {
  throw new Error("@sluice/sdk is not built: run `pnpm --filter @sluice/sdk build` (turbo does it before this package's build and test)");
}
const sdkDist = dirname(entry);
const sdkPackage = JSON.parse(readFileSync(join(sdkDist, "..", "package.json"), "utf8")) as {
  name: string;
  version: string;
  description: string;
  license: string;
};

rmSync(assets, { recursive: true, force: true });
mkdirSync(join(assets, "sdk", "dist"), { recursive: true });
for (const name of readdirSync(sdkDist)) {
  if (!name.endsWith(".js") && !name.endsWith(".d.ts")) continue;
  const text = readFileSync(join(sdkDist, name), "utf8").replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, "\n");
  writeFileSync(join(assets, "sdk", "dist", name), text);
}
writeFileSync(
  join(assets, "sdk", "package.json"),
  `${JSON.stringify(
    {
      name: sdkPackage.name,
      version: sdkPackage.version,
      description: sdkPackage.description,
      license: sdkPackage.license,
      type: "module",
      exports: { ".": { types: "./dist/index.d.ts", import: "./dist/index.js" } },
      main: "./dist/index.js",
      types: "./dist/index.d.ts",
      sideEffects: false,
    },
    null,
    2,
  )}\n`,
);

const bundle = await build({
  entryPoints: [entry],
  bundle: true,
  write: false,
  format: "iife",
  globalName: "Sluice",
  platform: "browser",
  target: "es2020",
  minify: true,
  legalComments: "none",
});
writeFileSync(join(assets, "sdk-browser.js"), bundle.outputFiles[0]!.text);
writeFileSync(join(assets, "manifest.json"), `${JSON.stringify({ sdkVersion: sdkPackage.version })}\n`);
console.log(`codegen assets: @sluice/sdk ${sdkPackage.version} vendored, browser bundle ${bundle.outputFiles[0]!.text.length} bytes`);
