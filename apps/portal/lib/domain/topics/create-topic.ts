// Editors create Kafka topics from the portal so a new user can try an endpoint
// of their own without Kafka's tools. On by default only with the stack's own
// Kafka (config.ts topicCreationEnabled); with an external cluster an operator
// turns it on, and then the portal's principal needs CREATE in the cluster's
// ACLs: a refusal names both. The audit entry is written once Kafka created the
// topic (Kafka is not part of the database transaction).
import type { AuthorizedActor } from "../../auth/actor";
import { topicCreationEnabled } from "../../config";
import type { Database } from "../../db";
import { AppError, conflict, forbidden, invalid } from "../../errors";
import { createKafkaTopic, listKafkaTopics, type KafkaTopic } from "../../kafka/admin";
import { recordChange } from "../../outbox/record-change";
import type { CreateTopicInput } from "../../validation/topics";

/** Kafka refuses a topic whose name equals an existing one once '.' and '_' are treated alike (their metric names collide). */
const metricName = (name: string) => name.replaceAll(".", "_");

export async function createTopic(options: {
  db: Database;
  actor: AuthorizedActor<"editor">;
  input: CreateTopicInput;
  /** Tests may create on another cluster. */
  brokers?: string[];
}): Promise<KafkaTopic> {
  const { name, partitions } = options.input;
  if (!topicCreationEnabled())
    throw new AppError(
      "forbidden",
      403,
      "Creating topics from the portal is off: the portal's Kafka is not the stack's own. An operator can turn it on with SLUICE_TOPIC_CREATION=on (the cluster's ACLs then decide).",
    );
  const existing = await listKafkaTopics({ fresh: true, brokers: options.brokers });
  if (existing.some((t) => t.name === name)) throw conflict("name", `Kafka already has a topic "${name}"`);
  const clash = existing.find((t) => metricName(t.name) === metricName(name));
  if (clash) throw invalid("name", `collides with the topic "${clash.name}": Kafka treats . and _ alike in topic names`);
  const result = await createKafkaTopic({ name, partitions }, { brokers: options.brokers });
  if (result.kind === "exists") throw conflict("name", `Kafka already has a topic "${name}"`);
  if (result.kind === "denied")
    throw forbidden(
      `Kafka's ACLs refused to create the topic "${name}": the portal connects as ${result.principal}, which needs ${result.acl}. Grant that ACL, or create the topic with the Kafka team's tools.`,
    );
  if (result.kind === "refused") throw invalid(result.field, `Kafka refused it (${result.error})`);
  const topic = { name, partitions };
  await options.db.transaction((tx) =>
    recordChange(tx, options.actor, { action: "topic.create", entityType: "kafka_topic", entityId: name, after: topic }),
  );
  return topic;
}
