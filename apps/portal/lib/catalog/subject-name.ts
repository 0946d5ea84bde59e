// The subject-name rule alone, with no runtime import, so the endpoint form can
// preview in the browser the subject the server will store (value-subject.ts
// holds the rest, which needs the database package).
import type { SubjectStrategy } from "@sluice/db";

/** Which side of a record a subject describes: its value or its key. */
export type SubjectRole = "value" | "key";
export const SUBJECT_ROLES = ["value", "key"] as const satisfies readonly SubjectRole[];

/**
 * subjectFor is the subject of the strategy: `topic` TopicNameStrategy
 * (`<topic>-value`, or `<topic>-key` for keys, as Kafka's key serializers
 * default to), `record` RecordNameStrategy (`<record>`), `topic-record`
 * TopicRecordNameStrategy (`<topic>-<record>`). Only the topic strategy
 * depends on the role.
 */
export function subjectFor(strategy: SubjectStrategy, topic: string, recordName: string | null, role: SubjectRole = "value"): string {
  if (strategy === "topic") return `${topic}-${role}`;
  if (recordName === null) throw new Error(`the ${strategy} strategy needs a record name`);
  return strategy === "record" ? recordName : `${topic}-${recordName}`;
}
