// The registry subjects an endpoint on a topic may use for its values or its
// keys, for the endpoint form: the topic's own subjects (`<topic>-value` or
// `<topic>-key`, `<topic>-<record>`) and every record-strategy subject, each
// marked with its strategy.
import type { AuthorizedActor } from "../../auth/actor";
import { type SubjectRole, subjectsForTopic, type TopicSubject } from "../../catalog/value-subject";
import { askRegistry, portalRegistry, type SchemaRegistry } from "../../registry/registry";

export async function listTopicSubjects(options: {
  actor: AuthorizedActor<"editor">;
  topic: string;
  /** Which side of the records; default the values. */
  role?: SubjectRole;
  /** The registry; undefined: the portal's (SCHEMA_REGISTRY_URL). */
  registry?: SchemaRegistry | null;
}): Promise<{ configured: boolean; items: TopicSubject[] }> {
  const registry = options.registry === undefined ? portalRegistry() : options.registry;
  // No registry is not an error here: the form shows that the registry formats are unavailable.
  if (!registry) return { configured: false, items: [] };
  const subjects = await askRegistry(() => registry.subjects());
  return { configured: true, items: subjectsForTopic(options.topic, subjects, options.role ?? "value") };
}
