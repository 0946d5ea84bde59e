// Validation shared by create and update: field rules, then the rules between
// fields, then Kafka (the topic must exist, and Kafka's ACLs must let the portal
// see it), then the schema registry for the registry formats (the subject and
// the pinned version must exist). Remote systems are asked last, so a bad name
// is reported without a round trip and an unreachable Kafka or registry is a
// 503, not a 422.
import type { TopicLookup } from "../../kafka/admin";
import { AppError, invalid } from "../../errors";
import { askRegistry, isNotFound, portalRegistry, SCHEMA_TYPE_OF, type SchemaRegistry } from "../../registry/registry";
import { checkEndpoint, isRegistryFormat, type EndpointDraft, type EndpointFields } from "../../validation/endpoints";

export async function resolveEndpoint(
  draft: EndpointDraft,
  options: {
    topics: TopicLookup;
    checkTopic: (topic: string) => boolean;
    /** The registry; undefined: the portal's (SCHEMA_REGISTRY_URL), null: none configured. */
    registry?: SchemaRegistry | null;
    /** Whether to ask the registry about the subject (update: only when subject, version or format change); default yes. */
    checkSubject?: (fields: EndpointFields) => boolean;
  },
): Promise<EndpointFields> {
  const result = checkEndpoint(draft);
  if (!result.ok) {
    const summary = result.errors.map((e) => `${e.field}: ${e.message}`).join("; ");
    throw new AppError("validation_failed", 422, `The input is not valid. ${summary}`, result.errors);
  }
  const { fields } = result;
  const registry = isRegistryFormat(fields.payloadFormat) ? (options.registry === undefined ? portalRegistry() : options.registry) : null;
  if (isRegistryFormat(fields.payloadFormat) && !registry) {
    throw invalid(
      "payloadFormat",
      `${fields.payloadFormat} is registry-backed, and the portal has no schema registry configured (set SCHEMA_REGISTRY_URL); choose json, text or bytes`,
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
  if (registry && (options.checkSubject?.(fields) ?? true)) await checkSubject(registry, fields);
  return fields;
}

/**
 * The subject must exist, the pinned version (or the latest) must exist, and
 * its schemas must be of the endpoint's format: an avro endpoint on a Protobuf
 * subject could neither decode nor encode.
 */
async function checkSubject(registry: SchemaRegistry, fields: EndpointFields): Promise<void> {
  const subject = fields.valueSubject!;
  const version = fields.valueSchemaVersion;
  let found: Awaited<ReturnType<SchemaRegistry["version"]>>;
  try {
    found = await askRegistry(() => registry.version(subject, version ?? "latest"));
  } catch (err) {
    if (isNotFound(err, "version") && version !== null) {
      throw invalid(
        "valueSchema.version",
        `subject "${subject}" has no version ${version} in the schema registry; pin an existing version or null (latest)`,
      );
    }
    if (isNotFound(err)) {
      throw invalid(
        "valueSchema.subject",
        `the schema registry has no subject "${subject}" (${strategyHint(fields)}); register the schema first or choose another strategy or record name`,
      );
    }
    throw err;
  }
  const expected = SCHEMA_TYPE_OF[fields.payloadFormat as keyof typeof SCHEMA_TYPE_OF];
  if (found.schemaType !== expected) {
    throw invalid(
      "valueSchema.subject",
      `subject "${subject}" holds ${found.schemaType} schemas, not ${expected}: choose the payload format that matches (${formatOf(found.schemaType)})`,
    );
  }
}

const formatOf = (schemaType: string) => Object.entries(SCHEMA_TYPE_OF).find(([, t]) => t === schemaType)?.[0] ?? schemaType;

function strategyHint(fields: EndpointFields): string {
  if (fields.valueSubjectStrategy === "topic") return `the topic strategy's subject for topic "${fields.topic}"`;
  if (fields.valueSubjectStrategy === "record") return `the record strategy's subject for record ${fields.valueRecordName}`;
  return `the topic-record strategy's subject for topic "${fields.topic}" and record ${fields.valueRecordName}`;
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
