// Reads an endpoint's JSON Schema (draft 2020-12) into a small type tree that
// the Python, Go and Java templates print in their own syntax. It covers what
// payload schemas usually say (objects with properties, arrays, string enums,
// primitives, nullable types, local $refs, allOf of objects, a oneOf/anyOf of
// one type and null as registry schemas' optional values are converted);
// anything else becomes "any", so a generated type is never stricter than the schema.

/**
 * @typedef {{kind: "any"|"string"|"integer"|"number"|"boolean"|"null", nullable?: boolean, description?: string}} Primitive
 * @typedef {{kind: "enum", values: string[], nullable?: boolean, description?: string}} Enum
 * @typedef {{kind: "array", items: Type, nullable?: boolean, description?: string}} ArrayType
 * @typedef {{kind: "map", values: Type, nullable?: boolean, description?: string}} MapType
 * @typedef {{name: string, jsonName: string, type: Type, required: boolean, description: string}} Field
 * @typedef {{kind: "object", name: string, fields: Field[], nullable?: boolean, description?: string}} ObjectType
 * @typedef {Primitive | Enum | ArrayType | MapType | ObjectType} Type
 */

/**
 * typeTree returns the root type of `schema` (named `rootName` when it is an
 * object) and every object type it contains, parents before children, with
 * names unique within the tree (`PricesSymbolPayload`, `PricesSymbolPayloadVenue`).
 * @returns {{ root: Type, objects: ObjectType[] }}
 */
export function typeTree(schema, rootName) {
  const objects = [];
  const used = new Set();
  const unique = (name) => {
    let candidate = name;
    for (let i = 2; used.has(candidate); i++) candidate = `${name}${i}`;
    used.add(candidate);
    return candidate;
  };
  const walk = (node, name, depth, seen) => {
    if (!node || typeof node !== "object" || depth > 12) return { kind: "any" };
    const description = typeof node.description === "string" ? node.description : typeof node.title === "string" ? node.title : undefined;
    const withDescription = (t) => (description && !t.description ? { ...t, description } : t);
    if (typeof node.$ref === "string") {
      if (seen.has(node.$ref)) return { kind: "any" }; // recursive: not worth a type
      const target = resolveRef(schema, node.$ref);
      const next = new Set(seen).add(node.$ref);
      return withDescription(walk(target, name, depth + 1, next));
    }
    if (Array.isArray(node.allOf) && node.allOf.length > 0) {
      const parts = node.allOf.map((p) => (p && typeof p.$ref === "string" ? resolveRef(schema, p.$ref) : p));
      const rest = { ...node };
      delete rest.allOf;
      if ([rest, ...parts].every((p) => p && typeof p === "object" && (p.type === undefined || p.type === "object"))) {
        const merged = { type: "object", properties: {}, required: [] };
        for (const p of [rest, ...parts]) {
          Object.assign(merged.properties, p.properties ?? {});
          merged.required.push(...(Array.isArray(p.required) ? p.required : []));
        }
        if (description) merged.description = description;
        return walk(merged, name, depth + 1, seen);
      }
      return withDescription({ kind: "any" });
    }
    // `oneOf: [T, {type: "null"}]` (an Avro ["null", T] union, a nullable $ref): T, nullable.
    for (const key of ["oneOf", "anyOf"]) {
      const list = node[key];
      if (!Array.isArray(list) || list.length !== 2) continue;
      const isNull = (b) => b && typeof b === "object" && b.type === "null" && Object.keys(b).length === 1;
      const other = list.find((b) => !isNull(b));
      if (list.some(isNull) && other && typeof other === "object") {
        const rest = { ...node };
        delete rest[key];
        if (Object.keys(rest).some((k) => !["description", "title", "default"].includes(k))) break;
        const inner = walk(other, name, depth + 1, seen);
        return withDescription(inner.kind === "any" ? inner : { ...inner, nullable: true });
      }
    }
    if ("const" in node)
      return typeof node.const === "string" ? withDescription({ kind: "enum", values: [node.const] }) : withDescription({ kind: "any" });
    let types = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
    const nullable = types.includes("null") && types.length > 1;
    types = types.filter((t) => t !== "null" || !nullable);
    if (Array.isArray(node.enum)) {
      const values = node.enum.filter((v) => v !== null);
      const enumNullable = nullable || values.length < node.enum.length;
      if (values.length > 0 && values.every((v) => typeof v === "string")) {
        return withDescription({ kind: "enum", values, ...(enumNullable ? { nullable: true } : {}) });
      }
    }
    if (types.length !== 1) {
      if (types.length === 0 && (node.properties || node.items)) types = [node.properties ? "object" : "array"];
      else return withDescription({ kind: "any" });
    }
    const mark = (t) => withDescription(nullable ? { ...t, nullable: true } : t);
    switch (types[0]) {
      case "string":
      case "integer":
      case "number":
      case "boolean":
      case "null":
        return mark({ kind: types[0] });
      case "array": {
        const items =
          node.items && typeof node.items === "object" && !Array.isArray(node.items)
            ? walk(node.items, `${name}Item`, depth + 1, seen)
            : { kind: "any" };
        return mark({ kind: "array", items });
      }
      case "object": {
        const props = node.properties && typeof node.properties === "object" ? node.properties : {};
        const keys = Object.keys(props);
        if (keys.length === 0) {
          const extra = node.additionalProperties;
          const values = extra && typeof extra === "object" ? walk(extra, `${name}Value`, depth + 1, seen) : { kind: "any" };
          return mark({ kind: "map", values });
        }
        const required = new Set(Array.isArray(node.required) ? node.required : []);
        const object = { kind: "object", name: unique(name), fields: [], ...(description ? { description } : {}) };
        objects.push(object);
        for (const key of keys) {
          const type = walk(props[key], `${name}${pascal(key)}`, depth + 1, seen);
          object.fields.push({ name: key, jsonName: key, type, required: required.has(key), description: type.description ?? "" });
        }
        return mark(object);
      }
      default:
        return withDescription({ kind: "any" });
    }
  };
  const root = walk(schema, rootName, 0, new Set());
  return { root, objects };
}

function resolveRef(root, ref) {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  return ref
    .slice(2)
    .split("/")
    .map((p) => decodeURIComponent(p).replaceAll("~1", "/").replaceAll("~0", "~"))
    .reduce((node, part) => (node && typeof node === "object" ? node[part] : undefined), root);
}

/** `first-name` → `FirstName`; `2fa` → `N2fa`. */
export function pascal(text) {
  const words = String(text)
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  if (words.length === 0) return "Field";
  const out = words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join("");
  return /^[0-9]/.test(out) ? `N${out}` : out;
}

/** `first-name` → `firstName`. */
export function camel(text) {
  const p = pascal(text);
  return p.charAt(0).toLowerCase() + p.slice(1);
}

/** `firstName` → `first_name`. */
export function snake(text) {
  const words = String(text)
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
  const out = words.join("_") || "field";
  return /^[0-9]/.test(out) ? `n${out}` : out;
}

/** A comment-safe single paragraph. */
export function oneLine(text) {
  return String(text ?? "")
    .replace(/\s+/g, " ")
    .trim()
    .replaceAll("*/", "* /");
}

/** Why a JSON payload has no type: no JSON Schema, or a registry schema the portal could not read. */
export function untypedReason(channel) {
  return channel.registry
    ? // The subject is free text: only safe characters reach comments and docstrings.
      `its ${channel.registry.format} schema (registry subject ${channel.registry.subject.replace(/[^\w.:@-]/g, "?")}) could not be read when the document was made`
    : "this endpoint has no JSON Schema";
}
