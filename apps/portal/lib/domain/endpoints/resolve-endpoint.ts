// Validation shared by create and update: field rules, then the rules between
// fields, then Kafka (the topic must exist, and Kafka's ACLs must let the portal
// see it), then the schema registry for the registry formats and for a key
// schema (the subject and the pinned version must exist; an exact key must be a
// value of its key schema). Remote systems are asked last, so a bad name is
// reported without a round trip and an unreachable Kafka or registry is a 503,
// not a 422.
import { registrySchemaToJsonSchema, type SubjectVersion } from "@sluice/schema-registry";

import type { TopicLookup } from "../../kafka/admin";
import { AppError, invalid } from "../../errors";
import { askRegistry, isNotFound, portalRegistry, SCHEMA_TYPE_OF, type SchemaRegistry } from "../../registry/registry";
import { checkEndpoint, isRegistryFormat, type EndpointDraft, type EndpointFields } from "../../validation/endpoints";
import { schemaKeyProblem } from "../../validation/schema-key";

export async function resolveEndpoint(
  draft: EndpointDraft,
  options: {
    topics: TopicLookup;
    checkTopic: (topic: string) => boolean;
    /** The registry; undefined: the portal's (SCHEMA_REGISTRY_URL), null: none configured. */
    registry?: SchemaRegistry | null;
    /** Whether to ask the registry about the subject (update: only when subject, version or format change); default yes. */
    checkSubject?: (fields: EndpointFields) => boolean;
    /** Likewise for the key subject and an exact key (update: only when the key subject, its version or the key change). */
    checkKeySubject?: (fields: EndpointFields) => boolean;
  },
): Promise<EndpointFields> {
  const result = checkEndpoint(draft);
  if (!result.ok) {
    const summary = result.errors.map((e) => `${e.field}: ${e.message}`).join("; ");
    throw new AppError("validation_failed", 422, `The input is not valid. ${summary}`, result.errors);
  }
  const { fields } = result;
  const needsRegistry = isRegistryFormat(fields.payloadFormat) || fields.keySubject !== null;
  const registry = needsRegistry ? (options.registry === undefined ? portalRegistry() : options.registry) : null;
  if (isRegistryFormat(fields.payloadFormat) && !registry) {
    throw invalid(
      "payloadFormat",
      `${fields.payloadFormat} is registry-backed, and the portal has no schema registry configured (set SCHEMA_REGISTRY_URL); choose json, text or bytes`,
    );
  }
  if (fields.keySubject !== null && !registry) {
    throw invalid(
      "keySchema",
      "registry-encoded keys need the portal's schema registry, and none is configured (set SCHEMA_REGISTRY_URL); remove keySchema for plain keys",
    );
  }
  if (options.checkTopic(fields.topic)) {
    const field = draft.path !== undefined ? "path" : "topic";
    const found = await options.topics(fields.topic);
    if (found.kind === "missing") {
      throw invalid(field, `Kafka has no topic named "${fields.topic}"; create the topic first or choose one of the existing topics`);
    }
    if (found.kind === "denied") throw invalid(field, topicDeniedMessage(fields.topic, found.principal));
  }
  if (registry && isRegistryFormat(fields.payloadFormat) && (options.checkSubject?.(fields) ?? true)) await checkSubject(registry, fields);
  if (registry && fields.keySubject !== null && (options.checkKeySubject?.(fields) ?? true)) await checkKeySubject(registry, fields);
  return fields;
}

/** A subject's pinned (or latest) version; a missing subject or version is a 422 on `<role>Schema.subject` / `.version`. */
async function subjectVersionOf(
  registry: SchemaRegistry,
  role: "value" | "key",
  subject: string,
  version: number | null,
  hint: string,
): Promise<SubjectVersion> {
  try {
    return await askRegistry(() => registry.version(subject, version ?? "latest"));
  } catch (err) {
    if (isNotFound(err, "version") && version !== null) {
      throw invalid(
        `${role}Schema.version`,
        `subject "${subject}" has no version ${version} in the schema registry; pin an existing version or null (latest)`,
      );
    }
    if (isNotFound(err)) {
      throw invalid(
        `${role}Schema.subject`,
        `the schema registry has no subject "${subject}" (${hint}); register the schema first or choose another strategy or record name`,
      );
    }
    throw err;
  }
}

/**
 * The key subject and its version must exist (any schema type: a JSON-valued
 * topic may have Avro keys), and an exact endpoint's key must be a value of
 * that schema, written as the gateway writes a decoded key (schema-key.ts).
 */
async function checkKeySubject(registry: SchemaRegistry, fields: EndpointFields): Promise<void> {
  const hint = strategyHint(fields.keySubjectStrategy!, fields.topic, fields.keyRecordName, "key");
  const found = await subjectVersionOf(registry, "key", fields.keySubject!, fields.keySchemaVersion, hint);
  if (fields.key === null) return;
  let jsonSchema: Record<string, unknown>;
  try {
    const converted = await registrySchemaToJsonSchema(found, {
      fetchReference: (ref) => askRegistry(() => registry.version(ref.subject, ref.version)),
      ...(found.schemaType === "PROTOBUF" && fields.keyRecordName ? { message: fields.keyRecordName } : {}),
    });
    jsonSchema = converted.jsonSchema;
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw invalid(
      "keySchema.subject",
      `version ${found.version} of subject "${found.subject}" cannot be read as a key schema: ${(err as Error).message}`,
    );
  }
  const problem = schemaKeyProblem(fields.key, jsonSchema);
  if (problem) throw invalid("key", `${problem} (subject "${found.subject}", version ${found.version})`);
}

/**
 * The subject must exist, the pinned version (or the latest) must exist, and
 * its schemas must be of the endpoint's format: an avro endpoint on a Protobuf
 * subject could neither decode nor encode.
 */
async function checkSubject(registry: SchemaRegistry, fields: EndpointFields): Promise<void> {
  const subject = fields.valueSubject!;
  const hint = strategyHint(fields.valueSubjectStrategy!, fields.topic, fields.valueRecordName, "value");
  const found = await subjectVersionOf(registry, "value", subject, fields.valueSchemaVersion, hint);
  const expected = SCHEMA_TYPE_OF[fields.payloadFormat as keyof typeof SCHEMA_TYPE_OF];
  if (found.schemaType !== expected) {
    throw invalid(
      "valueSchema.subject",
      `subject "${subject}" holds ${found.schemaType} schemas, not ${expected}: choose the payload format that matches (${formatOf(found.schemaType)})`,
    );
  }
}

const formatOf = (schemaType: string) => Object.entries(SCHEMA_TYPE_OF).find(([, t]) => t === schemaType)?.[0] ?? schemaType;

function strategyHint(
  strategy: EndpointFields["valueSubjectStrategy"],
  topic: string,
  recordName: string | null,
  role: "value" | "key",
): string {
  const of = role === "key" ? "key subject" : "subject";
  if (strategy === "topic") return `the topic strategy's ${of} for topic "${topic}"`;
  if (strategy === "record") return `the record strategy's ${of} for record ${recordName}`;
  return `the topic-record strategy's ${of} for topic "${topic}" and record ${recordName}`;
}

/**
 * The 422 message for a topic Kafka's ACLs hide from the portal: who is denied,
 * and the one ACL that fixes it (the README's "Kafka ACLs each component needs").
 * Kafka answers a principal without DESCRIBE the same whether or not the topic
 * exists, so the message does not claim it exists.
 */
export function topicDeniedMessage(topic: string, principal: string): string {
  return (
    `Kafka's ACLs deny the portal's Kafka principal, ${principal}, access to topic "${topic}" ` +
    `(Kafka does not say whether the topic exists); grant that principal DESCRIBE on the topic ` +
    `(see "Kafka ACLs each component needs" in the README) or choose another topic`
  );
}
