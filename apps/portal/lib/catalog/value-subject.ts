// The registry subject an endpoint's values are registered under, from the
// subject name strategy of the Kafka serializers: the portal computes it once
// and stores it, and the catalog carries only the result (CATALOG.md).
import { SUBJECT_STRATEGIES, type SubjectStrategy } from "@sluice/db";

export { SUBJECT_STRATEGIES, type SubjectStrategy };
export { SUBJECT_ROLES, type SubjectRole, subjectFor } from "./subject-name";
import type { SubjectRole } from "./subject-name";

/** The longest subject the catalog accepts (the endpoints_value_subject_length check). */
export const MAX_SUBJECT_LENGTH = 255;

/**
 * A record's full name as Avro and Protobuf spell it: dot-separated names of
 * letters, digits and `_`, not starting with a digit (`com.acme.Price`).
 */
const FULL_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** Why a record name cannot name a record, or undefined when it can. */
export function recordNameProblem(name: string): string | undefined {
  if (name === "") return "is required with the record and topic-record strategies: the record's full name, such as com.acme.Price";
  if (!FULL_NAME.test(name)) return `"${name}" is not a record's full name (dot-separated names such as com.acme.Price)`;
  return undefined;
}

/** A registry subject as the value (or key) subject of one of a topic's strategies. */
export interface TopicSubject {
  subject: string;
  /** The side of the records it is offered for: the topic strategy's subject is `<topic>-value` or `<topic>-key`. */
  role: SubjectRole;
  strategy: SubjectStrategy;
  /** The record's full name for the record strategies, null for the topic strategy. */
  recordName: string | null;
}

/**
 * The subjects a topic's endpoints may use for one side of the records (role),
 * from the registry's subject list: `<topic>-value` or `<topic>-key` (topic),
 * `<topic>-<full name>` (topic-record), and every subject that is a full name
 * (record: such subjects are not tied to a topic, so all are offered). The
 * other side's topic subject and other topics' subjects are left out; the
 * record strategies' subjects do not say their side, so both lists offer them.
 * Sorted: the topic strategy first, then topic-record, then record.
 */
export function subjectsForTopic(topic: string, subjects: readonly string[], role: SubjectRole = "value"): TopicSubject[] {
  const found: TopicSubject[] = [];
  const prefix = `${topic}-`;
  const own = `${topic}-${role}`;
  const other = `${topic}-${role === "value" ? "key" : "value"}`;
  for (const subject of subjects) {
    if (subject === own) found.push({ subject, role, strategy: "topic", recordName: null });
    else if (subject.startsWith(prefix) && subject !== other && FULL_NAME.test(subject.slice(prefix.length)))
      found.push({ subject, role, strategy: "topic-record", recordName: subject.slice(prefix.length) });
    else if (FULL_NAME.test(subject)) found.push({ subject, role, strategy: "record", recordName: subject });
  }
  const order = { topic: 0, "topic-record": 1, record: 2 } as const;
  return found.sort((a, b) => order[a.strategy] - order[b.strategy] || a.subject.localeCompare(b.subject));
}
