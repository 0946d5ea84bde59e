// What a grant will not do yet, said before it is saved: a pattern that reaches
// no endpoint of the catalog (a typo, or an endpoint not defined yet), or whose
// topic Kafka does not have. Neither refuses the grant (grants are patterns and
// may precede their endpoints); the forms ask the user to confirm, and the API
// returns the warnings with the grant (and with ?dryRun=true, without saving it).
import type { DbOrTx } from "../../db";
import { AppError } from "../../errors";
import { kafkaTopicLookup, type TopicLookup } from "../../kafka/admin";
import { parsePattern } from "../../permissions/match";
import { apisReached } from "./plan-for-grant";

export interface GrantWarning {
  /** no_endpoint: the pattern reaches no endpoint; no_topic: Kafka has no such topic; topic_unchecked: Kafka could not be asked. */
  code: "no_endpoint" | "no_topic" | "topic_unchecked";
  message: string;
}

/** The warnings for one canonical grant pattern. Kafka being down is itself a warning, not a failure. */
export async function grantWarnings(options: { db: DbOrTx; pattern: string; topics?: TopicLookup }): Promise<GrantWarning[]> {
  const { pattern } = options;
  const warnings: GrantWarning[] = [];
  if ((await apisReached(options.db, pattern)).size === 0)
    warnings.push({
      code: "no_endpoint",
      message: `${pattern} matches no endpoint of the catalog: tokens may carry it, but no gateway serves anything there until such an endpoint is defined.`,
    });
  const parsed = parsePattern(pattern);
  if (!parsed.ok || parsed.value.prefix === "/") return warnings;
  const topic = decodeURIComponent(parsed.value.canonical.slice(1).split("/")[0]!);
  try {
    const found = await (options.topics ?? kafkaTopicLookup)(topic);
    if (found.kind === "missing") warnings.push({ code: "no_topic", message: `Kafka has no topic "${topic}".` });
    else if (found.kind === "denied")
      warnings.push({
        code: "topic_unchecked",
        message: `Kafka's ACLs deny ${found.principal} the topic "${topic}", so the portal cannot tell whether it exists.`,
      });
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    warnings.push({ code: "topic_unchecked", message: `Whether Kafka has the topic "${topic}" could not be checked: ${err.message}` });
  }
  return warnings;
}
