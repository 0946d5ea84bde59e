// Validation shared by create and update: field rules, then the rules between
// fields, then Kafka (the topic must exist). Kafka is asked last, so a bad name
// is reported without a round trip and an unreachable Kafka is a 503, not a 422.
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
  if (options.checkTopic(fields.topic) && !(await options.topics(fields.topic))) {
    throw invalid(
      draft.path !== undefined ? "path" : "topic",
      `Kafka has no topic named "${fields.topic}"; create the topic first or choose one of the existing topics`,
    );
  }
  return fields;
}
