// The subject-name rule alone, with no runtime import, so the endpoint form can
// preview in the browser the subject the server will store (value-subject.ts
// holds the rest, which needs the database package).
import type { SubjectStrategy } from "@sluice/db";

/**
 * subjectFor is the subject of the strategy: `topic` TopicNameStrategy
 * (`<topic>-value`), `record` RecordNameStrategy (`<record>`), `topic-record`
 * TopicRecordNameStrategy (`<topic>-<record>`).
 */
export function subjectFor(strategy: SubjectStrategy, topic: string, recordName: string | null): string {
  if (strategy === "topic") return `${topic}-value`;
  if (recordName === null) throw new Error(`the ${strategy} strategy needs a record name`);
  return strategy === "record" ? recordName : `${topic}-${recordName}`;
}
