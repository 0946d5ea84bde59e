// @sluice/codegen, loaded by Node at run time rather than bundled by Next: it
// runs @asyncapi/generator, which reads templates from the package's folder
// (`new URL("../templates/", import.meta.url)`) and requires modules dynamically.
// serverExternalPackages lists it, but Turbopack still bundles workspace packages
// (symlinked outside node_modules; vercel/next.js#84388), so the import is hidden
// from the bundler. Only types are imported statically (erased at build time).
import type { LanguageId } from "@sluice/codegen";

type Codegen = typeof import("@sluice/codegen");

let loading: Promise<Codegen> | undefined;

export function loadCodegen(): Promise<Codegen> {
  loading ??= import(/* turbopackIgnore: true */ /* webpackIgnore: true */ "@sluice/codegen");
  return loading;
}

/**
 * The languages @sluice/codegen generates, known before it loads (route schemas
 * and the OpenAPI document are built at import time). The type below fails the
 * typecheck when codegen adds a language this list lacks; a unit test checks the order.
 */
export const CLIENT_LANGUAGES = ["typescript", "javascript", "python", "go", "java", "curl"] as const satisfies readonly LanguageId[];

type Unlisted = Exclude<LanguageId, (typeof CLIENT_LANGUAGES)[number]>;
export const allLanguagesListed: [Unlisted] extends [never] ? true : Unlisted = true;

export const isClientLanguage = (value: string): value is LanguageId => (CLIENT_LANGUAGES as readonly string[]).includes(value);
