// Helpers shared by the TypeScript template's components (bundled into each by rollup).

const RESERVED = new Set(
  "break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package private protected public await arguments eval".split(
    " ",
  ),
);

/** A safe TypeScript identifier for a path parameter. */
export function paramIdent(namesOf, name) {
  const id = namesOf(name).camel;
  return RESERVED.has(id) ? `${id}Value` : id;
}

/** A TypeScript string literal. */
export const lit = (s) => JSON.stringify(s);

/** Text safe inside a /** … *\/ comment. */
export const doc = (s) =>
  String(s)
    .replaceAll("*/", "*\\/")
    .replace(/\s*\n\s*/g, " ")
    .trim();
