import { endpoints, streamingApis, type Endpoint } from "@sluice/db";
import { sql } from "drizzle-orm";

/** The columns of an endpoint in lists: everything but the (possibly large) schema and examples. */
export const endpointSummaryColumns = {
  id: endpoints.id,
  apiId: endpoints.apiId,
  apiName: streamingApis.name,
  apiVersion: streamingApis.version,
  path: endpoints.path,
  topic: endpoints.topic,
  key: endpoints.key,
  keyParam: endpoints.keyParam,
  operations: endpoints.operations,
  payloadFormat: endpoints.payloadFormat,
  description: endpoints.description,
  hasSchema: sql<boolean>`${endpoints.jsonSchema} is not null`,
  createdAt: endpoints.createdAt,
  updatedAt: endpoints.updatedAt,
};

export function toEndpointView(endpoint: Endpoint, api: { id: string; name: string; version: string }) {
  return {
    id: endpoint.id,
    apiId: endpoint.apiId,
    api: { id: api.id, name: api.name, version: api.version },
    path: endpoint.path,
    topic: endpoint.topic,
    key: endpoint.key,
    keyParam: endpoint.keyParam,
    operations: endpoint.operations as ("subscribe" | "publish")[],
    payloadFormat: endpoint.payloadFormat,
    jsonSchema: (endpoint.jsonSchema ?? null) as Record<string, unknown> | null,
    valueSchema: valueSchemaView(endpoint),
    keySchema: keySchemaView(endpoint),
    description: endpoint.description,
    examples: (endpoint.examples ?? []) as unknown[],
    createdAt: endpoint.createdAt,
    updatedAt: endpoint.updatedAt,
  };
}

export type EndpointView = ReturnType<typeof toEndpointView>;

/** A registry format's value schema as the API shows it (the subject computed, read-only), or null. */
export function valueSchemaView(
  endpoint: Pick<Endpoint, "valueSubject" | "valueSubjectStrategy" | "valueRecordName" | "valueSchemaVersion">,
) {
  if (endpoint.valueSubject === null || endpoint.valueSubjectStrategy === null) return null;
  return {
    strategy: endpoint.valueSubjectStrategy,
    recordName: endpoint.valueRecordName,
    subject: endpoint.valueSubject,
    version: endpoint.valueSchemaVersion,
  };
}

/** The key schema as the API shows it (the subject computed, read-only), or null for plain keys. */
export function keySchemaView(endpoint: Pick<Endpoint, "keySubject" | "keySubjectStrategy" | "keyRecordName" | "keySchemaVersion">) {
  if (endpoint.keySubject === null || endpoint.keySubjectStrategy === null) return null;
  return {
    strategy: endpoint.keySubjectStrategy,
    recordName: endpoint.keyRecordName,
    subject: endpoint.keySubject,
    version: endpoint.keySchemaVersion,
  };
}

/**
 * The endpoints constraints (packages/db) as the field each is about: `path` when
 * the caller gave a path, else the field that made the path (key or keyParam).
 */
export function endpointConstraints(usedPath: boolean, fields: { keyParam: string | null }) {
  const f = (field: string) => (usedPath ? "path" : field);
  return {
    endpoints_path_key: { field: f(fields.keyParam === null ? "key" : "keyParam"), message: "another endpoint already has this path" },
    endpoints_topic_key_key: { field: f("key"), message: "this topic already has an endpoint for this key" },
    endpoints_topic_param_key: {
      field: f("keyParam"),
      message: "this topic already has a parameterised endpoint (/topic/{param}); a topic can have only one",
    },
    endpoints_topic_format: { field: f("topic"), message: "is not a valid Kafka topic name" },
    endpoints_key_not_empty: { field: f("key"), message: "must be 1–1024 characters" },
    endpoints_key_param_format: { field: f("keyParam"), message: "is not a valid parameter name" },
    endpoints_operations_valid: { field: "operations", message: "must be a non-empty list of subscribe, publish" },
    endpoints_schema_is_json_object: { field: "jsonSchema", message: "must be an object, and only json endpoints can have one" },
    endpoints_examples_array: { field: "examples", message: "must be a list" },
    endpoints_value_subject_registry: { field: "valueSchema", message: "is required for the registry formats and only for them" },
    endpoints_value_subject_length: { field: "valueSchema.subject", message: "must be 1–255 characters" },
    endpoints_value_record_name: { field: "valueSchema.recordName", message: "is required by the record strategies and only by them" },
    endpoints_value_schema_version: { field: "valueSchema.version", message: "must be 1 or more, or null (latest)" },
    endpoints_key_subject_strategy: { field: "keySchema", message: "needs both a subject and its strategy" },
    endpoints_key_subject_length: { field: "keySchema.subject", message: "must be 1–255 characters" },
    endpoints_key_record_name: { field: "keySchema.recordName", message: "is required by the record strategies and only by them" },
    endpoints_key_schema_version: { field: "keySchema.version", message: "must be 1 or more, or null (latest)" },
  };
}
