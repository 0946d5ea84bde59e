// The registry schemas of a document's avro/protobuf/json-schema endpoints,
// fetched before the (pure) document builder runs: each endpoint's subject at
// its pinned version, or the latest, converted to the JSON Schema of the JSON
// the gateway serves (@sluice/schema-registry's registrySchemaToJsonSchema).
//
// The document must build even when the registry cannot answer: a schema that
// could not be had is an entry with `error`, which the builder turns into a
// payload that says so (and the portal logs it). Conversions are cached by
// schema id (ids are immutable) and pinned versions by subject and version.
// "latest" moves, so its answer is kept only LATEST_TTL_MS (the gateway, too,
// looks the latest up again every 30 s): every API and endpoint page builds the
// document for its client-code section, and a burst of pages should not each
// ask the registry, or each wait for it to time out when it is away.
import {
  type ConvertedSchema,
  type RegisteredSchema,
  registrySchemaToJsonSchema,
  type SchemaReference,
  type SubjectVersion,
} from "@sluice/schema-registry";

import type { SchemaRegistry } from "../registry/registry";

/** What the document says about one endpoint's registry schema. */
export type RegistrySchemaForDocument =
  | { subject: string; version: number | null; schema: SubjectVersion; converted: ConvertedSchema; error?: undefined }
  | { subject: string; version: number | null; error: string };

interface EndpointValueSchema {
  id: string;
  payloadFormat: string;
  valueSubject?: string | null;
  valueSchemaVersion?: number | null;
  /** The record a record-strategy subject is named for: the Protobuf message described (and published, as the gateway does). */
  valueRecordName?: string | null;
  keySubject?: string | null;
  keySchemaVersion?: number | null;
  keyRecordName?: string | null;
}

const MAX_CACHED = 500;
export const LATEST_TTL_MS = 30_000;
/** A failed "latest" (registry away) is remembered this long, so pages do not each wait for the timeout. */
const FAILURE_TTL_MS = 5_000;

interface Cache {
  versions: Map<string, Promise<SubjectVersion>>;
  /** By schema id and, for Protobuf, the message described. */
  conversions: Map<string, Promise<ConvertedSchema>>;
  latest: Map<string, { at: number; answer: Promise<SubjectVersion> }>;
}
// Per portal process, and safe per replica (docs/portal.md, "Several
// replicas"): a numbered version never changes in a registry, and "latest"
// expires within LATEST_TTL_MS on every replica alike.
const caches = new WeakMap<SchemaRegistry, Cache>();

/**
 * registrySchemasFor fetches the value schema of every registry-backed
 * endpoint (or, with role "key", the key schema of every endpoint that has
 * one); the result maps endpoint ids to it. `registry` null (no
 * SCHEMA_REGISTRY_URL) gives each such endpoint an error entry.
 */
export async function registrySchemasFor(options: {
  endpoints: EndpointValueSchema[];
  /** Which schema: the values' (default) or the keys'. */
  role?: "value" | "key";
  /** The clock for the cache of "latest" answers (tests). */
  now?: number;
  registry: SchemaRegistry | null;
  /** Why there is no registry, when it is not simply unconfigured (invalid settings). */
  noRegistryReason?: string;
  log?: (message: string) => void;
}): Promise<Map<string, RegistrySchemaForDocument>> {
  const out = new Map<string, RegistrySchemaForDocument>();
  const log = options.log ?? ((message: string) => console.warn(message));
  await Promise.all(
    options.endpoints.map(async (endpoint) => {
      const side =
        options.role === "key"
          ? { subject: endpoint.keySubject, version: endpoint.keySchemaVersion, recordName: endpoint.keyRecordName }
          : { subject: endpoint.valueSubject, version: endpoint.valueSchemaVersion, recordName: endpoint.valueRecordName };
      if (!side.subject) return;
      const subject = side.subject;
      const version = side.version ?? null;
      const which = version === null ? "the latest version" : `version ${version}`;
      if (!options.registry) {
        out.set(endpoint.id, {
          subject,
          version,
          error: options.noRegistryReason ?? "the portal has no schema registry configured (SCHEMA_REGISTRY_URL)",
        });
        return;
      }
      try {
        const schema = await subjectVersion(options.registry, subject, version, options.now);
        const converted = await conversion(options.registry, schema, side.recordName ?? undefined);
        out.set(endpoint.id, { subject, version, schema, converted });
      } catch (err) {
        const error = (err as Error).message || String(err);
        const what = options.role === "key" ? "key schema" : "schema";
        log(`AsyncAPI document: no ${what} for ${which} of subject "${subject}" (endpoint ${endpoint.id}): ${error}`);
        out.set(endpoint.id, { subject, version, error });
      }
    }),
  );
  return out;
}

function cacheOf(registry: SchemaRegistry): Cache {
  let cache = caches.get(registry);
  if (!cache) {
    cache = { versions: new Map(), conversions: new Map(), latest: new Map() };
    caches.set(registry, cache);
  }
  return cache;
}

/** Memoises a promise under key, forgetting it if it fails (a registry that was away may answer next time). */
function remember<K, V>(map: Map<K, Promise<V>>, key: K, make: () => Promise<V>): Promise<V> {
  const known = map.get(key);
  if (known) return known;
  if (map.size >= MAX_CACHED) map.delete(map.keys().next().value as K);
  const promise = make();
  map.set(key, promise);
  promise.catch(() => map.delete(key));
  return promise;
}

function subjectVersion(registry: SchemaRegistry, subject: string, version: number | null, now = Date.now()): Promise<SubjectVersion> {
  if (version === null) {
    const latest = cacheOf(registry).latest;
    const known = latest.get(subject);
    if (known && now - known.at < LATEST_TTL_MS) return known.answer;
    if (latest.size >= MAX_CACHED) latest.delete(latest.keys().next().value as string);
    const entry = { at: now, answer: registry.version(subject, "latest") };
    latest.set(subject, entry);
    // A failure is kept only FAILURE_TTL_MS from the ask: the registry may be back soon.
    entry.answer.catch(() => {
      entry.at -= LATEST_TTL_MS - FAILURE_TTL_MS;
    });
    return entry.answer;
  }
  return remember(cacheOf(registry).versions, `${subject}\u0000${version}`, () => registry.version(subject, version));
}

function conversion(registry: SchemaRegistry, schema: SubjectVersion, recordName?: string): Promise<ConvertedSchema> {
  // Only a Protobuf file holds several messages to choose from; an Avro or JSON schema is its one record.
  const message = schema.schemaType === "PROTOBUF" ? recordName : undefined;
  return remember(cacheOf(registry).conversions, `${schema.id}\u0000${message ?? ""}`, () =>
    registrySchemaToJsonSchema(schema, {
      fetchReference: async (ref: SchemaReference): Promise<RegisteredSchema> => subjectVersion(registry, ref.subject, ref.version),
      ...(message ? { message } : {}),
    }),
  );
}
