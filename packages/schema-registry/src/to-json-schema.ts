// A registry schema (Avro, Protobuf or JSON Schema) as the JSON Schema of the
// JSON the gateway serves for it (docs/payload-formats.md), for the AsyncAPI
// document and the clients generated from it. References (other subjects) are
// fetched through the caller's function, dependencies first, each once.
import { avroToJsonSchema } from "./avro-to-json-schema.ts";
import type { RegisteredSchema, SchemaReference, SchemaType } from "./client.ts";
import { protobufToJsonSchema } from "./protobuf-to-json-schema.ts";

export { AvroSchemaError } from "./avro-to-json-schema.ts";
export { ProtobufSchemaError } from "./protobuf-to-json-schema.ts";

type Json = Record<string, unknown>;

export interface ConvertedSchema {
  /** The JSON Schema of the served JSON. */
  jsonSchema: Json;
  /** Its AsyncAPI schemaFormat: draft 2020-12, or the dialect a JSON Schema declares. */
  jsonSchemaFormat: string;
  /** The AsyncAPI schemaFormat of the original registry schema. */
  originalFormat: string;
}

/** Draft 2020-12: what Avro and Protobuf convert to, and what the gateway assumes of a JSON Schema without `$schema`. */
export const JSON_SCHEMA_2020_12_FORMAT = "application/schema+json;version=draft-2020-12";
export const AVRO_SCHEMA_FORMAT = "application/vnd.apache.avro+json;version=1.9.0";

export async function registrySchemaToJsonSchema(
  schema: Pick<RegisteredSchema, "schemaType" | "schema" | "references">,
  options: {
    /** Fetches one reference (by subject and version); needed only when the schema has references. */
    fetchReference?: (ref: SchemaReference) => Promise<RegisteredSchema>;
    /** Protobuf: the message to describe (full name); the file's first by default. */
    message?: string;
  } = {},
): Promise<ConvertedSchema> {
  const references = await collectReferences(schema.references, options.fetchReference);
  return convertWithReferences(schema.schemaType, schema.schema, references, options.message);
}

/** A referenced schema under the name the referring schema uses for it. */
export interface NamedReference {
  name: string;
  schema: string;
}

/** The synchronous part: `references` hold every transitive reference, dependencies first. */
export function convertWithReferences(
  schemaType: SchemaType,
  text: string,
  references: NamedReference[],
  message?: string,
): ConvertedSchema {
  switch (schemaType) {
    case "AVRO":
      return {
        jsonSchema: avroToJsonSchema(
          text,
          references.map((r) => r.schema),
        ),
        jsonSchemaFormat: JSON_SCHEMA_2020_12_FORMAT,
        originalFormat: AVRO_SCHEMA_FORMAT,
      };
    case "PROTOBUF":
      return {
        jsonSchema: protobufToJsonSchema(text, Object.fromEntries(references.map((r) => [r.name, r.schema])), message),
        jsonSchemaFormat: JSON_SCHEMA_2020_12_FORMAT,
        originalFormat: `application/vnd.google.protobuf;version=${/^\s*syntax\s*=\s*["']proto2["']/m.test(text) ? 2 : 3}`,
      };
    case "JSON": {
      const jsonSchema = jsonSchemaWithReferences(text, references);
      const format = jsonSchemaFormatOf(jsonSchema);
      return { jsonSchema, jsonSchemaFormat: format, originalFormat: format };
    }
  }
}

async function collectReferences(
  refs: SchemaReference[],
  fetch: ((ref: SchemaReference) => Promise<RegisteredSchema>) | undefined,
): Promise<NamedReference[]> {
  const out: NamedReference[] = [];
  const seen = new Set<string>();
  const visit = async (list: SchemaReference[], depth: number) => {
    for (const ref of list) {
      const key = `${ref.subject}\u0000${ref.version}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (!fetch) throw new Error(`the schema refers to ${ref.subject} version ${ref.version}, and no way to fetch references was given`);
      if (depth > 32) throw new Error("schema references nest more than 32 deep");
      const schema = await fetch(ref);
      await visit(schema.references, depth + 1);
      out.push({ name: ref.name, schema: schema.schema });
    }
  };
  await visit(refs, 0);
  return out;
}

const DIALECTS: [RegExp, string][] = [
  [/draft-04/, "draft-04"],
  [/draft-06/, "draft-06"],
  [/draft-07/, "draft-07"],
  [/2019-09/, "2019-09"],
  [/2020-12/, "draft-2020-12"],
];

function jsonSchemaFormatOf(schema: Json): string {
  const declared = typeof schema.$schema === "string" ? schema.$schema : "";
  const dialect = DIALECTS.find(([re]) => re.test(declared))?.[1] ?? "draft-2020-12";
  return `application/schema+json;version=${dialect}`;
}

// Keywords whose values are data, not schemas: a "$ref" inside them is not a reference.
const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples", "example"]);

/**
 * A JSON Schema with its registry references embedded under `$defs` (by their
 * reference names), every `$ref` to one of them pointed there, so the result
 * stands alone (AsyncAPI tools and code generators fetch nothing).
 */
function jsonSchemaWithReferences(text: string, references: NamedReference[]): Json {
  const parse = (t: string, what: string) => {
    const value = JSON.parse(t) as unknown;
    if (typeof value === "boolean") return value ? {} : { not: {} };
    if (!value || typeof value !== "object" || Array.isArray(value)) throw new Error(`${what} is not a JSON Schema object`);
    return value as Json;
  };
  const names = new Set(references.map((r) => r.name));
  const key = (name: string) => `#/$defs/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`;
  const rewrite = (node: unknown, base: string): unknown => {
    if (Array.isArray(node)) return node.map((n) => rewrite(n, base));
    if (!node || typeof node !== "object") return node;
    return Object.fromEntries(
      Object.entries(node).map(([k, v]) => {
        if (DATA_KEYWORDS.has(k)) return [k, v];
        if (k !== "$ref" || typeof v !== "string") return [k, rewrite(v, base)];
        const hash = v.indexOf("#");
        const target = hash < 0 ? v : v.slice(0, hash);
        const fragment = hash < 0 ? "" : v.slice(hash + 1);
        if (target === "") return [k, base && fragment.startsWith("/") ? `${base}${fragment}` : base && !fragment ? base : v];
        if (names.has(target)) return [k, `${key(target)}${fragment}`];
        return [k, v];
      }),
    );
  };
  const root = rewrite(parse(text, "the schema"), "") as Json;
  if (references.length === 0) return root;
  const defs = { ...((root.$defs as Json | undefined) ?? {}) };
  for (const ref of references) {
    const embedded = rewrite(parse(ref.schema, `the reference ${ref.name}`), key(ref.name)) as Json;
    // An embedded schema's own $schema/$id would start a new resource and change how its refs resolve.
    delete embedded.$id;
    delete embedded.$schema;
    defs[ref.name] = embedded;
  }
  return { ...root, $defs: defs };
}
