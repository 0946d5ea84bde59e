// Runs a document through @asyncapi/parser (the same parser the rendered docs
// and the code generator use) and returns its error-level diagnostics. Used by
// the tests; a dev dependency, so never imported by the portal at run time.
import { DiagnosticSeverity, Parser, type AsyncAPIDocumentInterface } from "@asyncapi/parser";

let parser: Parser | undefined;

export async function parseAsyncApi(
  input: string | Record<string, unknown>,
): Promise<{ document: AsyncAPIDocumentInterface | undefined; errors: string[] }> {
  parser ??= new Parser();
  const { document, diagnostics } = await parser.parse(input as never);
  const errors = diagnostics
    .filter((d) => d.severity === DiagnosticSeverity.Error)
    .map((d) => `${d.code} at ${d.path.join(".")}: ${d.message}`);
  return { document, errors };
}
