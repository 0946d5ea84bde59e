// Message schemas are JSON Schema draft 2020-12 (what the catalog record and
// AsyncAPI 3 carry). ajv's 2020 build checks a schema against the meta-schema and
// compiles it, so a schema the gateway would choke on never reaches the catalog.
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";

function newAjv() {
  // strict: false — unknown keywords (x-…, examples, title) are legal JSON Schema.
  // Formats are annotations here: ajv-formats is not bundled and the gateway decides
  // on format assertion itself.
  return new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
}

export type SchemaCheck = { ok: true; validate: ValidateFunction } | { ok: false; message: string };

/** Compiles a draft 2020-12 schema, or says in one sentence why it is not one. */
export function compileJsonSchema(schema: unknown): SchemaCheck {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema))
    return { ok: false, message: "must be a JSON object (a JSON Schema)" };
  const declared = (schema as { $schema?: unknown }).$schema;
  if (declared !== undefined && declared !== "https://json-schema.org/draft/2020-12/schema") {
    return {
      ok: false,
      message: `must be JSON Schema draft 2020-12; $schema is ${JSON.stringify(declared)} (use "https://json-schema.org/draft/2020-12/schema" or leave $schema out)`,
    };
  }
  const ajv = newAjv();
  try {
    if (!ajv.validateSchema(schema))
      return { ok: false, message: `is not a valid JSON Schema (draft 2020-12): ${describeErrors(ajv.errors)}` };
    return { ok: true, validate: ajv.compile(schema) };
  } catch (err) {
    return { ok: false, message: `is not a usable JSON Schema: ${(err as Error).message}` };
  }
}

/** ajv's errors as one readable line, e.g. `/price must be number; must have required property 'symbol'`. */
export function describeErrors(errors: ErrorObject[] | null | undefined): string {
  if (!errors?.length) return "unknown error";
  return errors
    .slice(0, 5)
    .map((e) => `${e.instancePath || "(root)"} ${e.message ?? "is invalid"}`.trim())
    .join("; ");
}
