// A Protobuf schema (.proto text) as the JSON Schema (draft 2020-12) of the JSON
// the gateway makes of its records: protobuf's canonical JSON mapping with
// EmitDefaultValues, as docs/payload-formats.md describes. The .proto text is
// parsed with protobufjs (the widely used JavaScript implementation; its parser
// resolves imports, nested types and json_name); the mapping is ours.
//
// Which message: the first message of the file (what the gateway encodes
// publishes with) unless `message` names another. Every message type a field
// uses lives in `$defs` under its full name, so recursion and reuse need nothing
// special; the root message is inline unless something refers back to it.
import protobuf from "protobufjs";

import { FLOAT_SCHEMA } from "./avro-to-json-schema.ts";

type Json = Record<string, unknown>;

const INT64 = { type: "string", pattern: "^-?[0-9]+$", description: "a 64-bit integer, as a string" };
const UINT64 = { type: "string", pattern: "^[0-9]+$", description: "an unsigned 64-bit integer, as a string" };
const INT32 = { type: "integer", format: "int32", minimum: -2147483648, maximum: 2147483647 };
const UINT32 = { type: "integer", format: "uint32", minimum: 0, maximum: 4294967295 };
const BASE64 = { type: "string", contentEncoding: "base64" };

const SCALARS: Record<string, Json> = {
  double: FLOAT_SCHEMA,
  float: FLOAT_SCHEMA,
  int32: INT32,
  sint32: INT32,
  sfixed32: INT32,
  uint32: UINT32,
  fixed32: UINT32,
  int64: INT64,
  sint64: INT64,
  sfixed64: INT64,
  uint64: UINT64,
  fixed64: UINT64,
  bool: { type: "boolean" },
  string: { type: "string" },
  bytes: BASE64,
};

/** The well-known types have their own JSON forms. */
const WELL_KNOWN: Record<string, Json> = {
  "google.protobuf.Timestamp": { type: "string", format: "date-time" },
  "google.protobuf.Duration": { type: "string", pattern: "^-?[0-9]+(\\.[0-9]{1,9})?s$", description: 'seconds, as in "1.500s"' },
  "google.protobuf.Struct": { type: "object" },
  "google.protobuf.Value": {},
  "google.protobuf.ListValue": { type: "array" },
  "google.protobuf.FieldMask": { type: "string", description: "comma-separated field paths" },
  "google.protobuf.Empty": { type: "object", additionalProperties: false },
  "google.protobuf.Any": { type: "object", properties: { "@type": { type: "string" } }, required: ["@type"] },
  "google.protobuf.DoubleValue": FLOAT_SCHEMA,
  "google.protobuf.FloatValue": FLOAT_SCHEMA,
  "google.protobuf.Int64Value": INT64,
  "google.protobuf.UInt64Value": UINT64,
  "google.protobuf.Int32Value": INT32,
  "google.protobuf.UInt32Value": UINT32,
  "google.protobuf.BoolValue": { type: "boolean" },
  "google.protobuf.StringValue": { type: "string" },
  "google.protobuf.BytesValue": BASE64,
};

export class ProtobufSchemaError extends Error {
  override name = "ProtobufSchemaError";
}

/**
 * protobufToJsonSchema converts a .proto file. `references` maps each import
 * name to its .proto text (the schema's registry references); the well-known
 * types need none.
 */
export function protobufToJsonSchema(source: string, references: Record<string, string> = {}, message?: string): Json {
  const root = new protobuf.Root();
  let main: protobuf.IParserResult;
  try {
    for (const text of Object.values(references)) protobuf.parse(text, root, { keepCase: true, alternateCommentMode: true });
    main = protobuf.parse(source, root, { keepCase: true, alternateCommentMode: true });
    for (const name of [...(main.imports ?? []), ...(main.weakImports ?? [])]) {
      if (name in references) continue;
      const common = protobuf.common.get(name);
      if (!common) throw new ProtobufSchemaError(`the import "${name}" is neither a schema reference nor a well-known type`);
      root.addJSON(common.nested ?? {});
    }
    root.resolveAll();
  } catch (err) {
    if (err instanceof ProtobufSchemaError) throw err;
    throw new ProtobufSchemaError(`the Protobuf schema does not parse: ${(err as Error).message}`);
  }
  const type = lookup(root, message ?? firstMessage(source));
  const converter = new Converter();
  const out = converter.message(type);
  const defs = converter.defs();
  return { $schema: "https://json-schema.org/draft/2020-12/schema", ...out, ...(defs ? { $defs: defs } : {}) };
}

function lookup(root: protobuf.Root, name: string): protobuf.Type {
  try {
    return root.lookupType(name);
  } catch {
    throw new ProtobufSchemaError(`the Protobuf schema has no message ${name}`);
  }
}

/** The full name of the file's first top-level message: parsed again on its own, as protobufjs merges files into one tree. */
function firstMessage(source: string): string {
  const alone = protobuf.parse(source, new protobuf.Root(), { keepCase: true, alternateCommentMode: true });
  const ns = alone.package ? alone.root.lookup(alone.package) : alone.root;
  const first = (ns as protobuf.Namespace | null)?.nestedArray.find((n) => n instanceof protobuf.Type) as protobuf.Type | undefined;
  if (!first) throw new ProtobufSchemaError("the Protobuf schema defines no message");
  return nameOf(first);
}

class Converter {
  readonly #defs = new Map<string, Json>();
  #rootName = "";
  #rootReferenced = false;

  defs(): Json | undefined {
    if (this.#defs.size === 0) return undefined;
    return Object.fromEntries([...this.#defs].sort(([a], [b]) => (a < b ? -1 : 1)));
  }

  message(type: protobuf.Type): Json {
    this.#rootName = nameOf(type);
    const schema = this.#messageSchema(type);
    if (!this.#rootReferenced) return schema;
    this.#defs.set(this.#rootName, schema);
    return { $ref: refTo(this.#rootName) };
  }

  #messageSchema(type: protobuf.Type): Json {
    const properties: Json = {};
    const required: string[] = [];
    for (const field of type.fieldsArray) {
      properties[field.jsonName ?? field.name] = this.#field(field);
      if (!hasPresence(field)) required.push(field.jsonName ?? field.name);
    }
    // A real oneof shows at most one member; proto3 `optional` makes a synthetic one, which says nothing more.
    const dependentSchemas: Json = {};
    for (const oneof of type.oneofsArray) {
      const members = oneof.fieldsArray.map((f) => f.jsonName ?? f.name);
      if (members.length < 2) continue;
      for (const m of members) dependentSchemas[m] = { not: { anyOf: members.filter((o) => o !== m).map((o) => ({ required: [o] })) } };
    }
    return {
      title: type.name,
      ...(type.comment ? { description: type.comment } : {}),
      type: "object",
      properties,
      ...(required.length ? { required } : {}),
      ...(Object.keys(dependentSchemas).length ? { dependentSchemas } : {}),
      additionalProperties: false,
    };
  }

  #field(field: protobuf.Field): Json {
    const value = this.#valueOf(field);
    const doc = field.comment ? { description: field.comment } : {};
    if (field instanceof protobuf.MapField) return { type: "object", additionalProperties: value, ...doc };
    if (field.repeated) return { type: "array", items: value, ...doc };
    return { ...value, ...doc };
  }

  #valueOf(field: protobuf.Field): Json {
    const resolved = field.resolvedType;
    if (resolved instanceof protobuf.Enum) {
      if (nameOf(resolved) === "google.protobuf.NullValue") return { type: "null" };
      return { title: resolved.name, type: "string", enum: Object.keys(resolved.values) };
    }
    if (resolved instanceof protobuf.Type) {
      const name = nameOf(resolved);
      if (name in WELL_KNOWN) return { ...WELL_KNOWN[name] };
      if (name === this.#rootName) this.#rootReferenced = true;
      else if (!this.#defs.has(name)) {
        this.#defs.set(name, {}); // placeholder first: a recursive message refers to itself
        this.#defs.set(name, this.#messageSchema(resolved));
      }
      return { $ref: refTo(name) };
    }
    const scalar = SCALARS[field.type];
    if (!scalar) throw new ProtobufSchemaError(`the field ${field.name} has an unknown type ${field.type}`);
    return { ...scalar };
  }
}

/** Fields protojson leaves out when unset; every other field is in every decoded message. */
function hasPresence(field: protobuf.Field): boolean {
  if (field.repeated || field instanceof protobuf.MapField) return false;
  if (field.partOf || field.resolvedType instanceof protobuf.Type) return true;
  return Boolean(field.hasPresence);
}

const nameOf = (t: protobuf.ReflectionObject) => t.fullName.replace(/^\./, "");
const refTo = (name: string) => `#/$defs/${name}`;
