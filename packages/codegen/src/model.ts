// The neutral document model: the AsyncAPI document the portal builds
// (apps/portal/lib/asyncapi/build-document.ts), read once into the few facts a
// client needs. Every template and every snippet works from this model, never
// from the raw document, so all languages agree on names, URLs and payloads.
//
// The document is read as plain JSON rather than through @asyncapi/parser: it
// is Sluice's own output with only local `$ref`s, the parser would add ~100 ms
// per call (snippet() must be fast), and the generator parses it anyway for
// its own purposes.

/** How a client sees the payload: the registry formats (avro, protobuf, json-schema) arrive as JSON. */
export type PayloadFormat = "json" | "text" | "bytes";

/** Where a registry-backed endpoint's schema comes from (the message's `x-sluice-registry-schema`). */
export interface RegistrySource {
  /** The endpoint's payload format on Kafka. */
  format: "avro" | "protobuf" | "json-schema";
  subject: string;
  /** The subject version the document was made from; undefined when the registry did not answer. */
  version?: number;
  /** Its schema id. */
  id?: number;
}

export interface ChannelParameter {
  /** The name inside the address braces (`symbol` in `/prices/{symbol}`). */
  name: string;
  description: string;
}

export interface ChannelModel {
  /** The AsyncAPI channel id: a camelCase identifier derived from the path (`pricesSymbol`). */
  id: string;
  /** Identifier spellings of `id`, ready to use in each language. */
  names: Names;
  /** The endpoint path as declared, possibly with one `{param}` (`/prices/{symbol}`, `/orders/eu`). */
  address: string;
  description: string;
  /** Kafka topic (first path segment). */
  topic: string;
  /** The fixed record key of an exact endpoint; undefined for a parameterised one. */
  key?: string;
  /** Parameters in the order they appear in the address (Sluice uses at most one: the key). */
  parameters: ChannelParameter[];
  /** The endpoint allows subscribing (AsyncAPI `receive`). */
  subscribe: boolean;
  /** The endpoint allows publishing (AsyncAPI `send`). */
  publish: boolean;
  payloadFormat: PayloadFormat;
  /** Set for avro, protobuf and json-schema endpoints: their records are decoded to JSON by the gateway. */
  registry?: RegistrySource;
  contentType: string;
  /**
   * The endpoint's JSON Schema with its local `$ref`s pointing into itself
   * again (`#/$defs/x`): as the user wrote it (draft 2020-12), or for a registry
   * endpoint the schema of the JSON the gateway makes of its records (converted
   * from Avro or Protobuf, or the registry's JSON Schema); undefined without one.
   */
  schema?: Record<string, unknown>;
  /** Example payloads (JSON values) from the endpoint definition. */
  examples: unknown[];
  /**
   * A concrete path for examples and snippets: parameters filled with a sample
   * value (`/prices/AAPL` style: the first example's matching field, else `example`).
   */
  examplePath: string;
  /** A sample payload for publish examples: the first example, else one built from the schema. */
  examplePayload: unknown;
}

export interface ApiModel {
  /** API name (`info.title`). */
  title: string;
  version: string;
  /** The API's description without the generic "How to connect" section. */
  description: string;
  /** Identifier spellings of the API name (package/module names). */
  names: Names;
  /** The gateway's public base URL, http(s)://host[:port][/base], no trailing slash: the first of gatewayUrls. */
  gatewayUrl: string;
  /**
   * Every gateway node the document lists (servers `websocket`, `sse`, `httpPublish`,
   * then `websocket2`, `sse2`, … for further nodes), in order; clients start at a random one.
   */
  gatewayUrls: string[];
  /** Derived from gatewayUrl: ws(s)://…/ws, http(s)://…/sse, http(s)://…/pub. */
  wsUrl: string;
  sseUrl: string;
  publishUrl: string;
  /** WebSocket subprotocol. */
  subprotocol: "sluice.v1";
  /** Channels sorted by address. */
  channels: ChannelModel[];
}

export interface Names {
  /** `pricesSymbol` */
  camel: string;
  /** `PricesSymbol` */
  pascal: string;
  /** `prices_symbol` */
  snake: string;
  /** `PRICES_SYMBOL` */
  constant: string;
  /** `prices-symbol` */
  kebab: string;
}

type Json = Record<string, unknown>;

/** Reads an AsyncAPI document (JSON string or object, as built by the portal) into the model. */
export function buildModel(document: string | object): ApiModel {
  const doc = (typeof document === "string" ? JSON.parse(document) : document) as Json;
  if (typeof doc !== "object" || doc === null) throw new Error("AsyncAPI document: not a JSON object");
  if (typeof doc.asyncapi !== "string" || !doc.asyncapi.startsWith("3.")) {
    throw new Error(`AsyncAPI document: expected version 3.x, got ${JSON.stringify(doc.asyncapi)}`);
  }
  const info = obj(doc.info, "info");
  const title = str(info.title, "info.title");
  const version = str(info.version, "info.version");
  const gatewayUrls = gatewayUrlsOf(obj(doc.servers, "servers"));
  const gatewayUrl = gatewayUrls[0] as string;

  const operations = Object.values(obj(doc.operations ?? {}, "operations")).map((o) => obj(o, "operation"));
  const channels = Object.entries(obj(doc.channels ?? {}, "channels")).map(([id, raw]) => {
    const channel = obj(raw, `channels.${id}`);
    const address = str(channel.address, `channels.${id}.address`);
    const ref = `#/channels/${id}`;
    const actions = operations.filter((o) => (o.channel as Json | undefined)?.$ref === ref).map((o) => o.action);
    const message = firstMessage(doc, channel, id);
    const payloadFormat = payloadFormatOf(message);
    const registry = registryOf(message);
    const schema = schemaOf(message);
    const examples = Array.isArray(message.examples) ? message.examples.map((e) => (e as Json).payload).filter((p) => p !== undefined) : [];
    const parameters = [...address.matchAll(/\{([^}]+)\}/g)].map((m) => {
      const name = m[1]!;
      const declared = (channel.parameters as Json | undefined)?.[name] as Json | undefined;
      return { name, description: typeof declared?.description === "string" ? declared.description : "" };
    });
    const topic = address.split("/")[1] ?? "";
    const examplePayload = examples.length > 0 ? examples[0] : samplePayload(payloadFormat, schema);
    const model: ChannelModel = {
      id,
      names: namesOf(id),
      address,
      description: typeof channel.description === "string" ? channel.description : "",
      topic: typeof channel["x-sluice-topic"] === "string" ? channel["x-sluice-topic"] : topic,
      ...(parameters.length === 0
        ? { key: typeof channel["x-sluice-key"] === "string" ? channel["x-sluice-key"] : address.split("/").slice(2).join("/") }
        : {}),
      parameters,
      subscribe: actions.includes("receive"),
      publish: actions.includes("send"),
      payloadFormat,
      ...(registry ? { registry } : {}),
      contentType: typeof message.contentType === "string" ? message.contentType : "application/json",
      ...(schema ? { schema } : {}),
      examples,
      examplePath: fillPath(address, (name) => exampleParamValue(name, examples[0])),
      examplePayload,
    };
    return model;
  });
  channels.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));

  return {
    title,
    version,
    description: typeof info.description === "string" ? info.description.split(/\n*## How to connect/)[0]!.trim() : "",
    names: namesOf(title),
    gatewayUrl,
    gatewayUrls,
    wsUrl: `${gatewayUrl.replace(/^http/, "ws")}/ws`,
    sseUrl: `${gatewayUrl}/sse`,
    publishUrl: `${gatewayUrl}/pub`,
    subprotocol: "sluice.v1",
    channels,
  };
}

/** Finds a channel by its address (`/prices/{symbol}`) or throws a readable error. */
export function channelByAddress(model: ApiModel, address: string): ChannelModel {
  const channel = model.channels.find((c) => c.address === address);
  if (!channel) {
    throw new Error(
      `No channel with address "${address}" in ${model.title} (channels: ${model.channels.map((c) => c.address).join(", ") || "none"})`,
    );
  }
  return channel;
}

/** Replaces each `{param}` of an address with `value(param)`, percent-encoding each segment of the value. */
export function fillPath(address: string, value: (name: string) => string): string {
  return address.replace(/\{([^}]+)\}/g, (_, name: string) => value(name).split("/").map(encodeURIComponent).join("/"));
}

/** Splits words out of any string (`/prices/{symbol}`, `Market Data API`, `pricesSymbol`). */
export function namesOf(text: string): Names {
  const words = text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
  if (words.length === 0) words.push("api");
  if (/^[0-9]/.test(words[0]!)) words.unshift("n");
  const upper = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
  return {
    camel: words.map((w, i) => (i === 0 ? w : upper(w))).join(""),
    pascal: words.map(upper).join(""),
    snake: words.join("_"),
    constant: words.join("_").toUpperCase(),
    kebab: words.join("-"),
  };
}

function gatewayUrlsOf(servers: Json): string[] {
  const urls: string[] = [];
  // Node n > 1 has the same three servers with the suffix n (see apps/portal/lib/asyncapi/build-document.ts).
  for (let n = 1; ; n++) {
    const url = gatewayUrlOf(servers, n === 1 ? "" : String(n));
    if (url === undefined) break;
    if (!urls.includes(url)) urls.push(url);
  }
  if (urls.length === 0) throw new Error("AsyncAPI document: no gateway server (servers.sse, servers.httpPublish or servers.websocket)");
  return urls;
}

function gatewayUrlOf(servers: Json, suffixOfNode: string): string | undefined {
  // The SSE and publish servers carry the HTTP scheme; the WebSocket one the ws scheme.
  for (const [name, suffix] of [
    ["sse", "/sse"],
    ["httpPublish", "/pub"],
    ["websocket", "/ws"],
  ] as const) {
    const server = servers[`${name}${suffixOfNode}`] as Json | undefined;
    if (!server || typeof server.host !== "string") continue;
    const protocol = String(server.protocol ?? "http").replace(/^ws/, "http");
    const pathname = typeof server.pathname === "string" ? server.pathname : suffix;
    const base = pathname.endsWith(suffix) ? pathname.slice(0, -suffix.length) : pathname;
    return `${protocol}://${server.host}${base}`.replace(/\/+$/, "");
  }
  return undefined;
}

function firstMessage(doc: Json, channel: Json, channelId: string): Json {
  const messages = Object.values((channel.messages as Json | undefined) ?? {});
  if (messages.length === 0) return {};
  return obj(resolve(doc, messages[0]), `channels.${channelId}.messages`);
}

function payloadFormatOf(message: Json): PayloadFormat {
  const declared = message["x-sluice-payload-format"];
  if (declared === "json" || declared === "text" || declared === "bytes") return declared;
  const type = String(message.contentType ?? "application/json");
  return type.startsWith("text/") ? "text" : type === "application/octet-stream" ? "bytes" : "json";
}

const REGISTRY_FORMATS = new Set(["avro", "protobuf", "json-schema"]);

function registryOf(message: Json): RegistrySource | undefined {
  const format = message["x-sluice-payload-format"];
  if (typeof format !== "string" || !REGISTRY_FORMATS.has(format)) return undefined;
  const declared = (message["x-sluice-registry-schema"] ?? {}) as Json;
  return {
    format: format as RegistrySource["format"],
    subject: typeof declared.subject === "string" ? declared.subject : "",
    ...(typeof declared.version === "number" && typeof declared.id === "number" ? { version: declared.version, id: declared.id } : {}),
  };
}

function schemaOf(message: Json): Record<string, unknown> | undefined {
  const payload = message.payload as Json | undefined;
  if (!payload || typeof payload !== "object" || typeof payload.schemaFormat !== "string") return undefined;
  const schema = payload.schema as Json | undefined;
  if (!schema || typeof schema !== "object") return undefined;
  // The portal rebased the schema's own `#/…` pointers onto its place in the
  // document; point them back at the schema's root for tools that see it alone.
  const name = String(message.name ?? "");
  const rebased = `#/components/messages/${name}/payload/schema`;
  return unrebase(schema, rebased) as Record<string, unknown>;
}

const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples", "example"]);

function unrebase(schema: unknown, prefix: string): unknown {
  if (Array.isArray(schema)) return schema.map((s) => unrebase(s, prefix));
  if (!schema || typeof schema !== "object") return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => {
      if (k === "$ref" && typeof v === "string" && (v === prefix || v.startsWith(`${prefix}/`))) return [k, `#${v.slice(prefix.length)}`];
      if (DATA_KEYWORDS.has(k)) return [k, v];
      return [k, unrebase(v, prefix)];
    }),
  );
}

function resolve(doc: Json, value: unknown): unknown {
  let current = value;
  for (let depth = 0; depth < 10; depth++) {
    const ref = (current as Json | undefined)?.$ref;
    if (typeof ref !== "string" || !ref.startsWith("#/")) return current;
    current = ref
      .slice(2)
      .split("/")
      .map((p) => p.replaceAll("~1", "/").replaceAll("~0", "~"))
      .reduce<unknown>((node, part) => (node as Json | undefined)?.[part], doc);
  }
  return current;
}

function exampleParamValue(name: string, example: unknown): string {
  const field = example && typeof example === "object" ? (example as Json)[name] : undefined;
  if (typeof field === "string" && field && !field.includes("/")) return field;
  if (typeof field === "number") return String(field);
  return "example";
}

/** A small valid-looking payload from a schema: enough for a publish example. */
export function samplePayload(format: PayloadFormat, schema?: Record<string, unknown>): unknown {
  if (format === "text") return "hello";
  if (format === "bytes") return "aGVsbG8="; // base64 of "hello"
  if (!schema) return { hello: "world" };
  return sampleOf(schema, schema, 0) ?? {};
}

function sampleOf(schema: Json, root: Json, depth: number): unknown {
  if (depth > 6) return null;
  if (typeof schema.$ref === "string" && schema.$ref.startsWith("#")) {
    const target = resolve(root, { $ref: schema.$ref === "#" ? "#/" : schema.$ref });
    return target && typeof target === "object" ? sampleOf(target as Json, root, depth + 1) : null;
  }
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if ("default" in schema) return schema.default;
  for (const key of ["oneOf", "anyOf", "allOf"]) {
    const list = schema[key];
    if (Array.isArray(list) && list[0] && typeof list[0] === "object") return sampleOf(list[0] as Json, root, depth + 1);
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "object": {
      const props = (schema.properties ?? {}) as Record<string, Json>;
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : Object.keys(props);
      return Object.fromEntries(required.filter((k) => props[k]).map((k) => [k, sampleOf(props[k]!, root, depth + 1)]));
    }
    case "array": {
      const items = schema.items && typeof schema.items === "object" ? sampleOf(schema.items as Json, root, depth + 1) : null;
      const min = typeof schema.minItems === "number" ? schema.minItems : 0;
      return min > 0 ? Array.from({ length: min }, () => items) : [];
    }
    case "string":
      return sampleString(schema);
    case "integer":
    case "number": {
      const min =
        typeof schema.minimum === "number" ? schema.minimum : typeof schema.exclusiveMinimum === "number" ? schema.exclusiveMinimum + 1 : 1;
      return type === "integer" ? Math.ceil(min) : min;
    }
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return {};
  }
}

/** Formats and patterns of converted registry schemas, so a sample publish is one the gateway accepts. */
const SAMPLE_FORMATS: Record<string, string> = {
  "date-time": "2024-05-01T10:34:56.789Z",
  date: "2024-05-01",
  uuid: "0e1f6c36-4c9b-4a8b-9a53-6f7f4b0e9e2a",
};

function sampleString(schema: Json): string {
  if (typeof schema.format === "string" && SAMPLE_FORMATS[schema.format]) {
    const value = SAMPLE_FORMATS[schema.format]!;
    // timestamp-micros: six fraction digits.
    return typeof schema.pattern === "string" && schema.pattern.includes("{6}") ? value.replace(".789Z", ".789000Z") : value;
  }
  if (schema.contentEncoding === "base64") return "aGVsbG8="; // "hello"; a fixed size comes with its own `examples`
  if (typeof schema.pattern === "string") {
    const candidates = [
      "0",
      "1.00",
      "0.00",
      "12:00:00.000",
      "12:00:00.000000",
      "2024-05-01T12:00:00.000",
      "2024-05-01T12:00:00.000000",
      "1s",
    ];
    for (const digits of [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) candidates.push(digits ? `1.${"0".repeat(digits)}` : "1");
    try {
      const re = new RegExp(schema.pattern, "u");
      const fit = candidates.find((c) => re.test(c));
      if (fit) return fit;
    } catch {
      // not an ECMAScript pattern: fall through
    }
  }
  return typeof schema.minLength === "number" && schema.minLength > 7 ? "x".repeat(schema.minLength) : "example";
}

function obj(value: unknown, where: string): Json {
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new Error(`AsyncAPI document: ${where} is not an object`);
  return value as Json;
}

function str(value: unknown, where: string): string {
  if (typeof value !== "string") throw new Error(`AsyncAPI document: ${where} is not a string`);
  return value;
}
