// Whether an exact endpoint's key is a value of its key schema, and written the
// way the gateway writes a decoded key (the key contract, docs/payload-formats.md
// "Keys"): a string key is the string itself; any other key is its compact JSON,
// an object's members in the order the decoder writes them (the schema's order).
import { compileJsonSchema, describeErrors } from "./json-schema";

type Json = Record<string, unknown>;

/**
 * Why `key` cannot be the path key of a record whose key has this (converted)
 * JSON Schema, or undefined when it can. A schema that is not draft 2020-12 (a
 * JSON Schema subject of an older draft) cannot be checked here and is let
 * through: the gateway refuses a key it cannot encode when it is used.
 */
export function schemaKeyProblem(key: string, jsonSchema: Json): string | undefined {
  const compiled = compileJsonSchema(withoutDialect(jsonSchema));
  if (!compiled.ok) return undefined;
  const { validate } = compiled;
  // A string key is the text itself: a string schema accepts any key.
  if (validate(key)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(key);
  } catch {
    return `is not a value of the key schema: its keys are not strings (${describeErrors(validate.errors)}), and "${key}" is not JSON either; write the key as the compact JSON of a key, as the gateway writes decoded keys`;
  }
  if (!validate(parsed)) return `is not a value of the key schema: ${describeErrors(validate.errors)}`;
  const canonical = JSON.stringify(orderLike(parsed, jsonSchema, jsonSchema));
  if (canonical !== key)
    return `must be written as the gateway writes a decoded key: compact JSON, members in the schema's order (${canonical})`;
  return undefined;
}

/** Drops a 2020-12 `$schema` (compileJsonSchema refuses other drafts itself) so the check does not fetch a meta-schema. */
function withoutDialect(schema: Json): Json {
  if (schema.$schema !== "https://json-schema.org/draft/2020-12/schema") return schema;
  const { $schema: _, ...rest } = schema;
  return rest;
}

/**
 * The value with its objects' members in the order of the schema's `properties`
 * (the order the decoder writes an Avro record's or a Protobuf message's
 * fields); members the schema does not list keep their place after them. The
 * converters put named (possibly recursive) types in `$defs` behind a local
 * `$ref`, and nullable or union fields in `oneOf`/`anyOf`: those are followed.
 */
function orderLike(value: unknown, schema: unknown, root: Json, depth = 0): unknown {
  const s = resolve(schema, root, value, depth);
  if (Array.isArray(value)) return value.map((v) => orderLike(v, s?.items, root, depth + 1));
  if (!isObject(value)) return value;
  const properties = s && isObject(s.properties) ? s.properties : {};
  const out: Json = {};
  for (const name of Object.keys(properties)) if (name in value) out[name] = orderLike(value[name], properties[name], root, depth + 1);
  for (const [name, v] of Object.entries(value)) if (!(name in out)) out[name] = v;
  return out;
}

/** The schema itself, or what its local `$ref` names, or the union branch that describes this kind of value. */
function resolve(schema: unknown, root: Json, value: unknown, depth: number): Json | undefined {
  if (!isObject(schema) || depth > 64) return undefined;
  if (typeof schema.$ref === "string" && schema.$ref.startsWith("#/")) {
    const target = schema.$ref
      .slice(2)
      .split("/")
      .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"))
      .reduce<unknown>((node, part) => (isObject(node) ? node[part] : undefined), root);
    return resolve(target, root, value, depth + 1);
  }
  const branches = [schema.oneOf, schema.anyOf].find(Array.isArray) as unknown[] | undefined;
  if (branches) {
    const wanted = Array.isArray(value) ? "array" : "object";
    for (const branch of branches) {
      const b = resolve(branch, root, value, depth + 1);
      if (b && (b.type === wanted || (wanted === "object" && isObject(b.properties)))) return b;
    }
  }
  return schema;
}

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
