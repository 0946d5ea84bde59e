// Validation shared by create and update: field rules, then the rules between
// fields, then Kafka (the topic must exist, and Kafka's ACLs must let the portal
// see it). Kafka is asked last, so a bad name is reported without a round trip and
// an unreachable Kafka is a 503, not a 422.
import type { TopicLookup } from "../../kafka/admin";
import { AppError, invalid } from "../../errors";
import { checkEndpoint, type EndpointDraft, type EndpointFields } from "../../validation/endpoints";

export async function resolveEndpoint(
  draft: EndpointDraft,
  options: { topics: TopicLookup; checkTopic: (topic: string) => boolean },
): Promise<EndpointFields> {
  const result = checkEndpoint(draft);
  if (!result.ok) {
    const summary = result.errors.map((e) => `${e.field}: ${e.message}`).join("; ");
    throw new AppError("validation_failed", 422, `The input is not valid. ${summary}`, result.errors);
  }
  const { fields } = result;
  if (!options.checkTopic(fields.topic)) return fields;
  const field = draft.path !== undefined ? "path" : "topic";
  const found = await options.topics(fields.topic);
  if (found.kind === "missing") {
    throw invalid(field, `Kafka has no topic named "${fields.topic}"; create the topic first or choose one of the existing topics`);
  }
  if (found.kind === "denied") throw invalid(field, topicDeniedMessage(fields.topic, found.principal));
  return fields;
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
