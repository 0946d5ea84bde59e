// An Avro schema as the JSON Schema (draft 2020-12) of the JSON the gateway
// makes of its records: docs/payload-formats.md is the mapping, this file its
// description. The schema describes the canonical JSON (what subscribers get,
// and what publishing always accepts); the looser forms a publish may also use
// (a decimal as a number, a bare union value, a left-out field with a default)
// are not described, so no generated type accepts what the gateway never sends.
//
// Named types (records, enums, fixed) that are referenced by name anywhere —
// recursion, reuse, or a type from a referenced subject — go to `$defs` under
// their full name; a named type used only where it is defined stays inline.
type Json = Record<string, unknown>;
type AvroSchema = unknown;

const PRIMITIVES = new Set(["null", "boolean", "int", "long", "float", "double", "bytes", "string"]);
const INT32 = { minimum: -2147483648, maximum: 2147483647 };
/** Avro floats and doubles: NaN and the infinities travel as strings (JSON has no such numbers). */
export const FLOAT_SCHEMA: Json = {
  anyOf: [{ type: "number" }, { type: "string", enum: ["NaN", "Infinity", "-Infinity"] }],
  // Said in words too: code generators without union types make this "any".
  description: 'a number; NaN and the infinities as the strings "NaN", "Infinity", "-Infinity"',
};
const BASE64 = { type: "string", contentEncoding: "base64" };

const LOGICAL: Record<string, (t: Json) => Json | undefined> = {
  decimal: (t) => {
    const scale = typeof t.scale === "number" ? t.scale : 0;
    const precision = typeof t.precision === "number" ? `${t.precision}` : "?";
    return {
      type: "string",
      pattern: scale > 0 ? `^-?[0-9]+\\.[0-9]{${scale}}$` : "^-?[0-9]+$",
      description: `decimal(${precision}, ${scale}): a string with exactly ${scale} fraction digits`,
    };
  },
  uuid: () => ({ type: "string", format: "uuid" }),
  date: () => ({ type: "string", format: "date" }),
  "time-millis": () => ({ type: "string", pattern: "^[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}$" }),
  "time-micros": () => ({ type: "string", pattern: "^[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}$" }),
  "timestamp-millis": () => ({ type: "string", format: "date-time", pattern: "\\.[0-9]{3}Z$" }),
  "timestamp-micros": () => ({ type: "string", format: "date-time", pattern: "\\.[0-9]{6}Z$" }),
  // No time zone: not an RFC 3339 date-time, so a pattern instead of the format.
  "local-timestamp-millis": () => ({ type: "string", pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}$" }),
  "local-timestamp-micros": () => ({ type: "string", pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}$" }),
};
/** Which underlying Avro types each logical type may annotate; elsewhere it is ignored, as Avro says. */
const LOGICAL_ON: Record<string, string[]> = {
  decimal: ["bytes", "fixed"],
  uuid: ["string", "fixed"],
  date: ["int"],
  "time-millis": ["int"],
  "time-micros": ["long"],
  "timestamp-millis": ["long"],
  "timestamp-micros": ["long"],
  "local-timestamp-millis": ["long"],
  "local-timestamp-micros": ["long"],
};

export class AvroSchemaError extends Error {
  override name = "AvroSchemaError";
}

/**
 * avroToJsonSchema converts `schema` (Avro JSON text or value). `references`
 * are the schemas of its registry references, dependencies first: they define
 * named types the schema may use by name.
 */
export function avroToJsonSchema(schema: string | AvroSchema, references: (string | AvroSchema)[] = []): Json {
  const parse = (s: string | AvroSchema) => {
    if (typeof s !== "string") return s;
    try {
      return JSON.parse(s) as AvroSchema;
    } catch {
      // A bare primitive name is valid Avro schema text too ("string").
      if (PRIMITIVES.has(s.trim())) return s.trim();
      throw new AvroSchemaError("the Avro schema is not JSON");
    }
  };
  const converter = new Converter();
  for (const ref of references) converter.define(parse(ref), "");
  const root = parse(schema);
  converter.define(root, "");
  const out = converter.convert(root, "");
  const defs = converter.defs();
  return { $schema: "https://json-schema.org/draft/2020-12/schema", ...out, ...(defs ? { $defs: defs } : {}) };
}

class Converter {
  /** Every named type by full name (from the references and the schema). */
  readonly #named = new Map<string, Json>();
  /** Names used as types somewhere, with the namespace they appear in; resolved once every type is defined. */
  readonly #uses: [string, string][] = [];
  #referenced?: Set<string>;
  readonly #defs = new Map<string, Json>();

  /** First pass: registers the named types of `schema` and notes which are referenced by name. */
  define(schema: AvroSchema, namespace: string): void {
    if (typeof schema === "string") {
      if (!PRIMITIVES.has(schema)) this.#uses.push([schema, namespace]);
      return;
    }
    if (Array.isArray(schema)) {
      for (const branch of schema) this.define(branch, namespace);
      return;
    }
    if (!schema || typeof schema !== "object") throw new AvroSchemaError(`not an Avro schema: ${JSON.stringify(schema)}`);
    const t = schema as Json;
    if (typeof t.type === "object" && t.type !== null) {
      this.define(t.type, namespace);
      return;
    }
    switch (t.type) {
      case "record":
      case "error":
      case "enum":
      case "fixed": {
        const name = this.#nameOf(t, namespace);
        if (this.#named.has(name) && this.#named.get(name) !== t) throw new AvroSchemaError(`the named type ${name} is defined twice`);
        this.#named.set(name, t);
        if (t.type === "record" || t.type === "error") {
          const inner = namespaceOf(name);
          for (const field of (t.fields as Json[] | undefined) ?? []) this.define(field.type, inner);
        }
        return;
      }
      case "array":
        this.define(t.items, namespace);
        return;
      case "map":
        this.define(t.values, namespace);
        return;
      default:
        if (typeof t.type === "string" && !PRIMITIVES.has(t.type)) this.#uses.push([t.type, namespace]);
    }
  }

  defs(): Json | undefined {
    if (this.#defs.size === 0) return undefined;
    return Object.fromEntries([...this.#defs].sort(([a], [b]) => (a < b ? -1 : 1)));
  }

  /** The JSON Schema of one Avro type; `namespace` is the enclosing one, for names without dots. */
  convert(schema: AvroSchema, namespace: string): Json {
    if (typeof schema === "string") {
      if (PRIMITIVES.has(schema)) return primitive(schema);
      return this.#named_(this.#resolve(schema, namespace));
    }
    if (Array.isArray(schema)) return this.#union(schema, namespace);
    const t = schema as Json;
    if (typeof t.type === "object" && t.type !== null) return this.convert(t.type, namespace);
    const type = String(t.type);
    if (typeof t.logicalType === "string" && LOGICAL_ON[t.logicalType]?.includes(type)) {
      const logical = LOGICAL[t.logicalType]!(t);
      if (logical) return logical;
    }
    switch (type) {
      case "record":
      case "error":
      case "enum":
      case "fixed": {
        const name = this.#nameOf(t, namespace);
        return this.#isReferenced(name) ? this.#named_(name) : this.#namedType(name, t);
      }
      case "array":
        return { type: "array", items: this.convert(t.items, namespace) };
      case "map":
        return { type: "object", additionalProperties: this.convert(t.values, namespace) };
      default:
        if (PRIMITIVES.has(type)) return primitive(type);
        return this.#named_(this.#resolve(type, namespace));
    }
  }

  /**
   * The full name a type name means where it appears: in the enclosing
   * namespace, or else (as Java's Avro and others do) a type of the null namespace.
   */
  #resolve(name: string, namespace: string): string {
    const full = fullName(name, namespace);
    if (!this.#named.has(full) && !name.includes(".") && this.#named.has(name)) return name;
    return full;
  }

  #isReferenced(name: string): boolean {
    this.#referenced ??= new Set(this.#uses.map(([n, ns]) => this.#resolve(n, ns)));
    return this.#referenced.has(name);
  }

  /** A reference to a named type, defining it in $defs the first time. */
  #named_(name: string): Json {
    const t = this.#named.get(name);
    if (!t) throw new AvroSchemaError(`the type ${name} is not defined (is it in a schema reference?)`);
    if (!this.#defs.has(name)) {
      this.#defs.set(name, {}); // placeholder first: a recursive type refers to itself
      this.#defs.set(name, this.#namedType(name, t));
    }
    return { $ref: `#/$defs/${name.replaceAll("~", "~0").replaceAll("/", "~1")}` };
  }

  #namedType(name: string, t: Json): Json {
    const title = name.slice(name.lastIndexOf(".") + 1);
    const doc = typeof t.doc === "string" && t.doc ? { description: t.doc } : {};
    if (t.type === "enum") return { title, ...doc, type: "string", enum: t.symbols };
    if (t.type === "fixed") {
      if (t.logicalType === "decimal") return { title, ...doc, ...LOGICAL.decimal!(t) };
      const size = Number(t.size);
      const length = 4 * Math.ceil(size / 3);
      const zeros = Buffer.alloc(Math.max(0, size)).toString("base64");
      return {
        title,
        ...BASE64,
        minLength: length,
        maxLength: length,
        description: typeof t.doc === "string" && t.doc ? t.doc : `${size} bytes, base64`,
        examples: [zeros],
      };
    }
    const inner = namespaceOf(name);
    const fields = (t.fields as Json[] | undefined) ?? [];
    const properties: Json = {};
    for (const field of fields) {
      const value = this.convert(field.type, inner);
      const fieldDoc = typeof field.doc === "string" && field.doc ? { description: field.doc } : {};
      const hasDefault = "default" in field && plainDefault(field.type, field.default);
      properties[String(field.name)] = { ...value, ...fieldDoc, ...(hasDefault ? { default: field.default } : {}) };
    }
    return {
      title,
      ...doc,
      type: "object",
      properties,
      // Every field is in every decoded record, in schema order.
      required: fields.map((f) => String(f.name)),
      additionalProperties: false,
    };
  }

  #union(branches: AvroSchema[], namespace: string): Json {
    const isNull = (b: AvroSchema) => b === "null" || (typeof b === "object" && b !== null && (b as Json).type === "null");
    const others = branches.filter((b) => !isNull(b));
    if (others.length === 1 && branches.length === 2) return nullable(this.convert(others[0], namespace));
    const options: Json[] = branches.map((b) => {
      if (isNull(b)) return { type: "null" };
      const name = this.#branchName(b, namespace);
      return { type: "object", properties: { [name]: this.convert(b, namespace) }, required: [name], additionalProperties: false };
    });
    return { oneOf: options };
  }

  /** A union branch's name: its primitive name (logical types too), "array", "map", or a named type's full name. */
  #branchName(b: AvroSchema, namespace: string): string {
    if (typeof b === "string") return PRIMITIVES.has(b) ? b : this.#resolve(b, namespace);
    const t = b as Json;
    if (typeof t.type === "object" && t.type !== null) return this.#branchName(t.type, namespace);
    const type = String(t.type);
    if (["record", "error", "enum", "fixed"].includes(type)) return this.#nameOf(t, namespace);
    if (PRIMITIVES.has(type) || type === "array" || type === "map") return type;
    return this.#resolve(type, namespace);
  }

  #nameOf(t: Json, namespace: string): string {
    if (typeof t.name !== "string" || !t.name) throw new AvroSchemaError(`a ${String(t.type)} without a name`);
    if (t.name.includes(".")) return t.name;
    const ns = typeof t.namespace === "string" ? t.namespace : namespace;
    return ns ? `${ns}.${t.name}` : t.name;
  }
}

function primitive(name: string): Json {
  switch (name) {
    case "null":
      return { type: "null" };
    case "boolean":
      return { type: "boolean" };
    case "int":
      return { type: "integer", format: "int32", ...INT32 };
    case "long":
      return { type: "integer", format: "int64" };
    case "float":
    case "double":
      return { ...FLOAT_SCHEMA };
    case "bytes":
      return { ...BASE64 };
    default:
      return { type: "string" };
  }
}

/** T or null: folded into `type` when T is a plain typed schema, else a oneOf. */
export function nullable(schema: Json): Json {
  const keys = Object.keys(schema);
  if (typeof schema.type === "string" && !keys.some((k) => ["enum", "const", "$ref"].includes(k))) {
    return { ...schema, type: [schema.type, "null"] };
  }
  return { oneOf: [schema, { type: "null" }] };
}

/** Whether a field's Avro default is also its JSON default (not so for bytes, logical types, or a union's non-null branch). */
function plainDefault(type: AvroSchema, value: unknown): boolean {
  if (Array.isArray(type)) return value === null && type[0] === "null";
  if (typeof type === "string") return ["boolean", "int", "long", "string", "null"].includes(type);
  const t = type as Json;
  if (t.logicalType) return false;
  return ["boolean", "int", "long", "string", "enum"].includes(String(t.type));
}

function fullName(name: string, namespace: string): string {
  return name.includes(".") || !namespace ? name : `${namespace}.${name}`;
}

function namespaceOf(full: string): string {
  const i = full.lastIndexOf(".");
  return i < 0 ? "" : full.slice(0, i);
}
