// Turns one Streaming API and its endpoints into an AsyncAPI 3.0.0 document, as
// seen by a client of the gateway: a subscription is a `receive` operation, a
// publish a `send`. Pure: the same rows and gateway URL give the same document,
// so downloads, the rendered docs and generated clients agree.
//
// Payload schemas: an endpoint's JSON Schema is draft 2020-12 (the dialect the
// gateway validates with). It is embedded as a Multi Format Schema Object with
// schemaFormat `application/schema+json;version=draft-2020-12` rather than as
// AsyncAPI's default schema (a draft-07 superset): labelling it draft-07 would
// silently change its meaning (prefixItems, $defs, dependentRequired,
// unevaluatedProperties and the array form of items differ or are ignored).
// AsyncAPI 3 allows any schemaFormat; @asyncapi/parser 3.6 accepts it (it has
// no 2020-12 validator, so it neither validates nor rejects the schema — the
// portal validates schemas when endpoints are saved), and its Schema model still
// exposes the keywords, so the renderer shows them. Payloads Sluice describes
// itself (any JSON, text, bytes) use the default AsyncAPI schema format.
//
// Registry formats (avro, protobuf, json-schema): clients never see registry
// bytes, the gateway serves JSON. So the payload is the JSON Schema of that JSON,
// converted from the endpoint's registry schema by the rules of
// docs/payload-formats.md (registry-schemas.ts fetches and converts; a JSON
// Schema keeps its own dialect). The original schema travels beside it, as
// AsyncAPI leaves room for: the message's `x-sluice-registry-schema` (subject,
// version, id, schemaType, its AsyncAPI schemaFormat, the schema itself, its
// references), and a Kafka message binding that says how the records on the
// topic carry it (schema id in the payload, Confluent encoding, the subject
// strategy). The binding describes the Kafka record behind the endpoint; the
// document's servers are the gateway's, which strip that encoding.
//
// Registry-encoded keys (an endpoint's key schema, any payload format): the
// binding's `key` is the JSON Schema of the decoded key (the path key is its
// JSON text, a string key itself), converted like a payload, with its own
// `x-sluice-registry-schema`. The binding's `key` is an AsyncAPI Schema Object
// (the binding allows no schemaFormat there), so the converted schema goes in
// without `$schema`; Avro and Protobuf conversions use no keyword whose meaning
// differs between that format and draft 2020-12.
import type { Endpoint, StreamingApi } from "@sluice/db";

import type { RegistrySchemaForDocument } from "./registry-schemas";

export const JSON_SCHEMA_2020_12_FORMAT = "application/schema+json;version=draft-2020-12";
export const SECURITY_SCHEME_ID = "sluiceToken";

export type ApiForDocument = Pick<StreamingApi, "id" | "name" | "version" | "description" | "tags">;
export type EndpointForDocument = Pick<
  Endpoint,
  "id" | "path" | "topic" | "key" | "keyParam" | "operations" | "payloadFormat" | "jsonSchema" | "description" | "examples"
> &
  Partial<
    Pick<
      Endpoint,
      | "valueSubject"
      | "valueSubjectStrategy"
      | "valueSchemaVersion"
      | "valueRecordName"
      | "keySubject"
      | "keySubjectStrategy"
      | "keySchemaVersion"
      | "keyRecordName"
    >
  >;

type Json = Record<string, unknown>;
type Ref = { $ref: string };

export interface AsyncApiDocument {
  asyncapi: "3.0.0";
  id: string;
  info: Json & { title: string; version: string; description: string };
  defaultContentType: string;
  servers: Record<string, Json>;
  channels: Record<string, Json & { address: string; messages: Record<string, Ref> }>;
  operations: Record<string, Json & { action: "send" | "receive"; channel: Ref; messages: Ref[] }>;
  components: { messages: Record<string, Json>; securitySchemes: Record<string, Json> };
}

// The registry formats reach clients as JSON: the gateway decodes the wire format.
const CONTENT_TYPES = {
  json: "application/json",
  text: "text/plain",
  bytes: "application/octet-stream",
  avro: "application/json",
  protobuf: "application/json",
  "json-schema": "application/json",
} as const;
const securityRef: Ref = { $ref: `#/components/securitySchemes/${SECURITY_SCHEME_ID}` };

export function buildAsyncApiDocument(
  api: ApiForDocument,
  endpoints: EndpointForDocument[],
  options: {
    /** The gateway's public URL, or every node's (a list, or separated by commas): one set of servers per node. */
    gatewayUrl: string | readonly string[];
    /** Registry schemas by endpoint id (registrySchemasFor); a registry endpoint missing here is described as unavailable. */
    registrySchemas?: Map<string, RegistrySchemaForDocument>;
    /** Key schemas by endpoint id (registrySchemasFor with role "key"); likewise. */
    registryKeySchemas?: Map<string, RegistrySchemaForDocument>;
  },
): AsyncApiDocument {
  const nodes = (typeof options.gatewayUrl === "string" ? options.gatewayUrl.split(",") : options.gatewayUrl)
    .map((u) => u.trim())
    .filter(Boolean)
    .map(gatewayServers);
  const gateway = nodes[0];
  if (!gateway) throw new Error("The gateway's public URL is empty");
  // Node n > 1 gets the servers websocket<n>, sse<n>, httpPublish<n> (codegen reads them back in this order).
  const suffixes = nodes.map((_, i) => (i === 0 ? "" : String(i + 1)));
  const sorted = [...endpoints].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const ids = channelIds(sorted);

  const channels: AsyncApiDocument["channels"] = {};
  const operations: AsyncApiDocument["operations"] = {};
  const messages: AsyncApiDocument["components"]["messages"] = {};

  for (const endpoint of sorted) {
    const channelId = ids.get(endpoint.id)!;
    const messageId = `${channelId}Message`;
    const canSubscribe = endpoint.operations.includes("subscribe");
    const canPublish = endpoint.operations.includes("publish");
    const where = endpoint.keyParam
      ? `every key of Kafka topic \`${endpoint.topic}\``
      : `Kafka topic \`${endpoint.topic}\`, key \`${endpoint.key}\``;
    // Summaries are shown as plain text (descriptions as Markdown): no backticks there.
    const wherePlain = where.replaceAll("`", "");
    const registry = endpoint.valueSubject ? registryOf(endpoint, options.registrySchemas) : undefined;
    const keyRegistry = endpoint.keySubject ? keyRegistryOf(endpoint, options.registryKeySchemas) : undefined;
    const messagePointer = `#/components/messages/${messageId}`;

    messages[messageId] = {
      name: messageId,
      title: `${endpoint.path} payload`,
      summary: `A message on ${endpoint.path} (${endpoint.payloadFormat}).`,
      description:
        // Only the frames the endpoint allows: a subscribe-only endpoint's text must not offer publishing.
        (canPublish && canSubscribe
          ? "On the WebSocket it travels as `data` of a `message` frame (received) or a `publish` frame (sent); received frames also carry the position (`epoch`, `partition`, `seq`) and `ts`."
          : canSubscribe
            ? "On the WebSocket it travels as `data` of a `message` frame, which also carries the position (`epoch`, `partition`, `seq`) and `ts`. This endpoint is subscribe-only: it accepts no publishes."
            : "On the WebSocket it travels as `data` of a `publish` frame. This endpoint is publish-only: nothing can be subscribed to.") +
        (endpoint.payloadFormat === "bytes" ? ' Bytes travel base64-encoded with `"encoding":"base64"`.' : "") +
        (registry ? `\n\n${registryDescription(endpoint, registry)}` : "") +
        (keyRegistry ? `\n\n${keyDescription(keyRegistry)}` : ""),
      contentType: CONTENT_TYPES[endpoint.payloadFormat],
      payload: registry
        ? registryPayloadOf(endpoint, registry, `#/components/messages/${messageId}/payload/schema`)
        : payloadOf(endpoint, `#/components/messages/${messageId}/payload/schema`),
      ...examplesOf(endpoint),
      ...registryExtrasOf(endpoint, registry, keyRegistry, `${messagePointer}/bindings/kafka/key`),
      "x-sluice-payload-format": endpoint.payloadFormat,
    };

    channels[channelId] = {
      address: endpoint.path,
      title: endpoint.path,
      description: endpoint.description.trim() || `Messages of ${where}.`,
      servers: suffixes.flatMap((n) => [
        { $ref: `#/servers/websocket${n}` },
        ...(canSubscribe ? [{ $ref: `#/servers/sse${n}` }] : []),
        ...(canPublish ? [{ $ref: `#/servers/httpPublish${n}` }] : []),
      ]),
      ...(endpoint.keyParam
        ? {
            parameters: {
              [endpoint.keyParam]: {
                description: keyRegistry
                  ? `The decoded Kafka record key (registry subject \`${keyRegistry.subject}\`) as JSON text: a string key is itself, any other key its compact JSON in the schema's field order (e.g. \`42\`, \`{"shop":"eu","id":7}\`). Percent-encode each segment.`
                  : `The Kafka record key: any key of topic \`${endpoint.topic}\`. It may contain \`/\`; percent-encode each segment (e.g. \`BRK.B\`, \`caf%C3%A9\`).`,
              },
            },
          }
        : {}),
      messages: { [messageId]: { $ref: `#/components/messages/${messageId}` } },
      "x-sluice-endpoint-id": endpoint.id,
      "x-sluice-topic": endpoint.topic,
      ...(endpoint.keyParam ? { "x-sluice-key-param": endpoint.keyParam } : { "x-sluice-key": endpoint.key }),
    };

    const channel = { $ref: `#/channels/${channelId}` };
    const operationMessages = [{ $ref: `#/channels/${channelId}/messages/${messageId}` }];
    if (canSubscribe) {
      operations[`subscribe${upperFirst(channelId)}`] = {
        action: "receive",
        channel,
        title: `Subscribe to ${endpoint.path}`,
        summary: `Receive the messages of ${wherePlain}.`,
        description: [
          `WebSocket: \`{"type":"subscribe","id":"1","endpoint":"${endpoint.path}"}\`, optionally with \`"from"\` (\`"earliest"\`, \`{"time":ms}\` or a position to resume).`,
          `SSE: \`GET ${gateway.sseBase}${endpoint.path}\`.`,
          `The token's \`permissions\` must list this endpoint (or a wildcard such as \`/${endpoint.topic}/*\`) under \`sub\` or \`all\`.`,
        ].join("\n\n"),
        security: [securityRef],
        messages: operationMessages,
      };
    }
    if (canPublish) {
      operations[`publish${upperFirst(channelId)}`] = {
        action: "send",
        channel,
        title: `Publish to ${endpoint.path}`,
        summary: `Write a message to ${wherePlain}.`,
        description: [
          `WebSocket: \`{"type":"publish","id":"1","endpoint":"${endpoint.path}","data":…}\`, answered by \`published\` once Kafka acknowledged it.`,
          `HTTP: \`POST ${gateway.publishBase}${endpoint.path}\` with the payload as the body (\`${CONTENT_TYPES[endpoint.payloadFormat]}\`).`,
          endpoint.jsonSchema
            ? "The gateway validates the payload against the JSON Schema first (error 4022 names the failing location)."
            : "",
          registry
            ? `The gateway checks the payload against ${registry.version === null ? "the latest version" : `version ${registry.version}`} of registry subject \`${registry.subject}\` and encodes it in the Confluent wire format (error 4022 names the field that does not fit; nothing is registered on your behalf).`
            : "",
          `The token's \`permissions\` must list this endpoint (or a wildcard such as \`/${endpoint.topic}/*\`) under \`pub\` or \`all\`.`,
        ]
          .filter(Boolean)
          .join("\n\n"),
        security: [securityRef],
        messages: operationMessages,
      };
    }
  }

  return {
    asyncapi: "3.0.0",
    id: `urn:sluice:api:${api.id}`,
    info: {
      title: api.name,
      version: api.version,
      description: [api.description.trim(), howToConnect(gateway)].filter(Boolean).join("\n\n"),
      ...(api.tags.length ? { tags: [...new Set(api.tags)].map((name) => ({ name })) } : {}),
    },
    defaultContentType: "application/json",
    servers: Object.fromEntries(nodes.flatMap((node, i) => Object.entries(serversOf(node)).map(([id, s]) => [`${id}${suffixes[i]}`, s]))),
    channels,
    operations,
    components: {
      messages,
      securitySchemes: {
        [SECURITY_SCHEME_ID]: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description:
            "An app token minted in the Sluice portal (Apps → your app → Tokens), signed by the portal (ES256) and verified by every gateway node. " +
            'Its `permissions` claim — `{"sub": [...], "pub": [...], "all": [...]}` — lists exact endpoints such as `/orders/eu` or wildcards such as `/prices/*`: ' +
            "subscribing needs a match in `sub` or `all`, publishing in `pub` or `all`. A token never grants more than its app's grants, and a revoked token closes its connections at once.",
        },
      },
    },
  };
}

/** The three servers (WebSocket, SSE, HTTP publish) of one gateway node. */
function serversOf(gateway: Gateway): Record<string, Json> {
  return {
    websocket: {
      host: gateway.host,
      protocol: gateway.secure ? "wss" : "ws",
      pathname: gateway.wsPath,
      title: "WebSocket",
      summary: "The full protocol: subscribe and publish, resume from a position.",
      description: `Connect to \`${gateway.wsUrl}\` with the WebSocket subprotocol \`sluice.v1\`. The channel address is the \`endpoint\` of subscribe/publish frames, not a URL.`,
    },
    sse: {
      host: gateway.host,
      protocol: gateway.secure ? "https" : "http",
      pathname: gateway.ssePath,
      title: "Server-Sent Events",
      summary: "Subscribe only: GET this server's URL followed by the channel address.",
      description: `\`GET ${gateway.sseBase}/{topic}/{key}\` streams \`message\` and \`gap\` events; resume with \`Last-Event-ID\`. The token goes in \`Authorization: Bearer\` or \`?access_token=\`.`,
    },
    httpPublish: {
      host: gateway.host,
      protocol: gateway.secure ? "https" : "http",
      pathname: gateway.publishPath,
      title: "HTTP publish",
      summary: "Publish only: POST the payload to this server's URL followed by the channel address.",
      description: `\`POST ${gateway.publishBase}/{topic}/{key}\` answers \`200 {"endpoint","epoch","partition","seq"}\` after Kafka acknowledged the record.`,
    },
  };
}

export interface Gateway {
  host: string;
  secure: boolean;
  wsPath: string;
  ssePath: string;
  publishPath: string;
  wsUrl: string;
  sseBase: string;
  publishBase: string;
}

/** The gateway's public URL (SLUICE_GATEWAY_PUBLIC_URL) may carry a base path behind a proxy. */
export function gatewayServers(gatewayUrl: string): Gateway {
  let url: URL;
  try {
    url = new URL(gatewayUrl);
  } catch {
    throw new Error(`The gateway's public URL is not a URL: "${gatewayUrl}"`);
  }
  const secure = url.protocol === "https:" || url.protocol === "wss:";
  const base = url.pathname.replace(/\/+$/, "");
  const origin = `${secure ? "https" : "http"}://${url.host}`;
  return {
    host: url.host,
    secure,
    wsPath: `${base}/ws`,
    ssePath: `${base}/sse`,
    publishPath: `${base}/pub`,
    wsUrl: `${secure ? "wss" : "ws"}://${url.host}${base}/ws`,
    sseBase: `${origin}${base}/sse`,
    publishBase: `${origin}${base}/pub`,
  };
}

function howToConnect(gateway: Gateway): string {
  return [
    "## How to connect",
    "This document describes the API from a client's side: a *receive* operation is a subscription, a *send* operation a publish.",
    "1. **Get a token.** In the Sluice portal, open your app (Apps), make sure it has grants for the endpoints below, and issue a token.",
    `2. **WebSocket** (subscribe and publish): connect to \`${gateway.wsUrl}\` with subprotocol \`sluice.v1\`; authenticate with \`Authorization: Bearer <token>\` on the upgrade or a first frame \`{"type":"auth","id":"1","token":"<token>"}\`. Then send \`subscribe\` / \`publish\` frames naming an endpoint path. Each received message carries its position (\`epoch\`, \`partition\`, \`seq\`): keep the last one and subscribe with \`"from"\` set to it after a reconnect to continue without loss or duplicates.`,
    `3. **Server-Sent Events** (subscribe only): \`GET ${gateway.sseBase}/{topic}/{key}\`; **HTTP publish**: \`POST ${gateway.publishBase}/{topic}/{key}\`. Both take \`Authorization: Bearer <token>\`.`,
  ].join("\n\n");
}

function payloadOf(endpoint: EndpointForDocument, schemaPointer: string): unknown {
  switch (endpoint.payloadFormat) {
    case "json":
      if (endpoint.jsonSchema && typeof endpoint.jsonSchema === "object") {
        return { schemaFormat: JSON_SCHEMA_2020_12_FORMAT, schema: rebaseLocalRefs(endpoint.jsonSchema, schemaPointer) };
      }
      return { description: "Any JSON value: this endpoint has no JSON Schema." };
    case "text":
      return { type: "string", description: "UTF-8 text." };
    case "bytes":
      return {
        type: "string",
        contentEncoding: "base64",
        description: 'Binary data, base64-encoded (frames carry `"encoding":"base64"`).',
      };
    default:
      // The registry schema in the document (schemaFormat per format) is issue 16's AsyncAPI part, not done yet.
      return { description: `JSON, decoded by the gateway from ${endpoint.payloadFormat} records of the schema registry.` };
  }
}

/** The endpoint's examples are payload values, as in JSON Schema's `examples`. */
function examplesOf(endpoint: EndpointForDocument): { examples?: Json[] } {
  const values = Array.isArray(endpoint.examples) ? endpoint.examples : [];
  if (values.length === 0) return {};
  return { examples: values.map((payload, i) => ({ name: `example${i + 1}`, payload })) };
}

// Keywords whose values are data, not schemas: a "$ref" inside them is not a reference.
const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples", "example"]);

/**
 * AsyncAPI tools resolve every `$ref` against the whole document, so a schema's
 * own `#/$defs/x` would point at nothing. Local pointers are rebased onto where
 * the schema sits in the document; anchors and absolute URIs are left alone.
 */
export function rebaseLocalRefs(schema: unknown, pointer: string): unknown {
  if (Array.isArray(schema)) return schema.map((item) => rebaseLocalRefs(item, pointer));
  if (!schema || typeof schema !== "object") return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => {
      if (key === "$ref" && typeof value === "string" && (value === "#" || value.startsWith("#/"))) return [key, pointer + value.slice(1)];
      if (DATA_KEYWORDS.has(key)) return [key, value];
      return [key, rebaseLocalRefs(value, pointer)];
    }),
  );
}

/**
 * Channel ids are camelCase words of the path (`/prices/{symbol}` → `pricesSymbol`),
 * readable in generated code and stable while the path is. Paths that would share
 * an id get the start of their endpoint id appended, so the result never depends
 * on which endpoint came first.
 */
function channelIds(endpoints: EndpointForDocument[]): Map<string, string> {
  const base = new Map(endpoints.map((e) => [e.id, idFromPath(e.path)]));
  const counts = new Map<string, number>();
  for (const id of base.values()) counts.set(id, (counts.get(id) ?? 0) + 1);
  return new Map(
    [...base].map(([endpointId, id]) => [endpointId, counts.get(id)! > 1 ? `${id}_${endpointId.replaceAll("-", "").slice(0, 8)}` : id]),
  );
}

function idFromPath(path: string): string {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // keep the encoded form
  }
  const words = decoded.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const id = words.map((w, i) => (i === 0 ? w.charAt(0).toLowerCase() + w.slice(1) : upperFirst(w))).join("");
  if (!id) return "endpoint";
  return /^[0-9]/.test(id) ? `endpoint${id}` : id;
}

const upperFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

// ---- registry formats ----

const FORMAT_NAMES = { avro: "Avro", protobuf: "Protobuf", "json-schema": "JSON Schema" } as Record<string, string>;
/** Confluent's names for the subject strategies (the Kafka binding's schemaLookupStrategy is free text; these are what Kafka people know). */
const LOOKUP_STRATEGIES = { topic: "TopicNameStrategy", record: "RecordNameStrategy", "topic-record": "TopicRecordNameStrategy" } as const;

function registryOf(endpoint: EndpointForDocument, schemas: Map<string, RegistrySchemaForDocument> | undefined): RegistrySchemaForDocument {
  return (
    schemas?.get(endpoint.id) ?? {
      subject: endpoint.valueSubject!,
      version: endpoint.valueSchemaVersion ?? null,
      error: "the registry schema was not fetched",
    }
  );
}

function keyRegistryOf(
  endpoint: EndpointForDocument,
  schemas: Map<string, RegistrySchemaForDocument> | undefined,
): RegistrySchemaForDocument {
  return (
    schemas?.get(endpoint.id) ?? {
      subject: endpoint.keySubject!,
      version: endpoint.keySchemaVersion ?? null,
      error: "the registry schema was not fetched",
    }
  );
}

function registryDescription(endpoint: EndpointForDocument, registry: RegistrySchemaForDocument): string {
  const format = FORMAT_NAMES[endpoint.payloadFormat] ?? endpoint.payloadFormat;
  const which = registry.version === null ? "latest version" : `version ${registry.version}`;
  if (registry.error !== undefined) {
    return `The records are ${format} of registry subject \`${registry.subject}\` (${which}), which the gateway serves as JSON. The schema could not be read when this document was made (${registry.error}), so the payload is not described here; reload the document when the registry answers.`;
  }
  const s = registry.schema;
  return [
    `The records are ${format} of registry subject \`${s.subject}\`; this payload is the JSON the gateway makes of them (see the Sluice docs, payload-formats.md), described from version ${s.version} (schema id ${s.id}${registry.version === null ? ", the latest when this document was made" : ""}). The original schema is in \`x-sluice-registry-schema\`.`,
    "Each record is decoded with the schema its producer wrote it with, so records of an older or newer version may differ (fields added or removed).",
    !endpoint.operations.includes("publish")
      ? ""
      : endpoint.payloadFormat === "avro"
        ? 'When publishing you may also give a decimal as a number, a union value without its `{"<type>": …}` wrapper when only one branch fits, and leave out fields that have a default.'
        : endpoint.payloadFormat === "protobuf"
          ? "When publishing, fields may also be named as in the .proto file (`total_cents`), 64-bit integers may be numbers, and fields left out take their zero value."
          : "",
  ]
    .filter(Boolean)
    .join(" ");
}

function registryPayloadOf(endpoint: EndpointForDocument, registry: RegistrySchemaForDocument, schemaPointer: string): unknown {
  if (registry.error !== undefined) {
    return {
      description: `JSON decoded by the gateway from ${FORMAT_NAMES[endpoint.payloadFormat] ?? endpoint.payloadFormat} records of registry subject ${registry.subject}; its schema could not be read (${registry.error}).`,
    };
  }
  const { jsonSchema, jsonSchemaFormat } = registry.converted;
  return { schemaFormat: jsonSchemaFormat, schema: rebaseLocalRefs(jsonSchema, schemaPointer) };
}

function registryExtrasOf(
  endpoint: EndpointForDocument,
  registry: RegistrySchemaForDocument | undefined,
  keyRegistry: RegistrySchemaForDocument | undefined,
  keyPointer: string,
): Json {
  if (!registry && !keyRegistry) return {};
  const strategy = endpoint.valueSubjectStrategy ? LOOKUP_STRATEGIES[endpoint.valueSubjectStrategy] : undefined;
  const binding = {
    kafka: {
      ...(keyRegistry ? { key: keySchemaOf(keyRegistry, keyPointer) } : {}),
      // These describe the value's schema id; a plain value (json, text, bytes) with registry keys has none.
      ...(registry ? { schemaIdLocation: "payload", schemaIdPayloadEncoding: "confluent" } : {}),
      ...(strategy ? { schemaLookupStrategy: strategy } : {}),
      bindingVersion: "0.5.0",
    },
  };
  if (!registry) return { bindings: binding };
  return { bindings: binding, "x-sluice-registry-schema": registrySchemaExtension(registry) };
}

/** The binding's `key`: the decoded key's JSON Schema with its original beside it, or what could not be read. */
function keySchemaOf(keyRegistry: RegistrySchemaForDocument, pointer: string): Json {
  if (keyRegistry.error !== undefined) {
    return {
      description: `The record keys are encoded with registry subject ${keyRegistry.subject}; its schema could not be read (${keyRegistry.error}).`,
      "x-sluice-registry-schema": registrySchemaExtension(keyRegistry),
    };
  }
  const { $schema: _, ...jsonSchema } = keyRegistry.converted.jsonSchema;
  return {
    ...(rebaseLocalRefs(jsonSchema, pointer) as Json),
    "x-sluice-registry-schema": registrySchemaExtension(keyRegistry),
  };
}

function keyDescription(keyRegistry: RegistrySchemaForDocument): string {
  const which = keyRegistry.version === null ? "its latest version" : `version ${keyRegistry.version}`;
  return `The record keys are encoded with registry subject \`${keyRegistry.subject}\` (the gateway encodes a path key with ${which}); the path key is the decoded key as JSON text: a string key is itself, any other key its compact JSON in the schema's field order. The key's schema is the Kafka binding's \`key\`.`;
}

/** `x-sluice-registry-schema`: the original registry schema (subject, version, id, type, text), or why it could not be read. */
function registrySchemaExtension(registry: RegistrySchemaForDocument): Json {
  if (registry.error !== undefined) return { subject: registry.subject, version: registry.version, error: registry.error };
  const s = registry.schema;
  // An Avro schema is JSON and is embedded as a value (readable in the rendered
  // docs). A JSON Schema stays text: AsyncAPI tools resolve every $ref in the
  // document, and its refs point into itself or at other subjects. Protobuf is text.
  let original: unknown = s.schema;
  if (s.schemaType === "AVRO") {
    try {
      original = JSON.parse(s.schema);
    } catch {
      original = s.schema;
    }
  }
  return {
    subject: s.subject,
    version: s.version,
    pinned: registry.version !== null,
    id: s.id,
    schemaType: s.schemaType,
    schemaFormat: registry.converted.originalFormat,
    schema: original,
    ...(s.references.length ? { references: s.references } : {}),
  };
}
