// The Kafka topics endpoints can be defined on, and creating one where the
// portal may (the stack's own Kafka, or SLUICE_TOPIC_CREATION=on).
import { z } from "zod";

import { topicCreationEnabled } from "../../config";
import { createTopic } from "../../domain/topics/create-topic";
import { listKafkaTopics } from "../../kafka/admin";
import { createTopicInput } from "../../validation/topics";
import { defineRoute } from "../route";

const topic = z.object({ name: z.string(), partitions: z.number().int() }).meta({ id: "KafkaTopic" });

export const topicRoutes = [
  defineRoute({
    method: "GET",
    path: "/topics",
    operationId: "listTopics",
    summary: "List the Kafka topics with their partition counts",
    description:
      "Internal topics (names starting with __) are left out. Cached for a few seconds; 503 when Kafka is unreachable. `topicCreation` tells whether POST /topics is on.",
    tag: "Kafka",
    auth: "editor",
    response: z.object({
      items: z.array(topic),
      topicCreation: z.boolean().describe("Whether editors may create topics here (the stack's own Kafka, or SLUICE_TOPIC_CREATION=on)"),
    }),
    handler: async () => ({ items: await listKafkaTopics(), topicCreation: topicCreationEnabled() }),
  }),
  defineRoute({
    method: "POST",
    path: "/topics",
    operationId: "createTopic",
    summary: "Create a Kafka topic",
    description:
      "On with the stack's own Kafka (local mode); with an external Kafka only when the operator sets SLUICE_TOPIC_CREATION=on, and then the cluster's ACLs decide: the portal's principal needs CREATE. Off: 403 naming SLUICE_TOPIC_CREATION. An existing name: 409 naming `name`. ACLs refusing: 403 naming the principal and the ACL. Replication follows the brokers' default. Audited as topic.create.",
    tag: "Kafka",
    auth: "editor",
    body: createTopicInput,
    status: 201,
    response: topic,
    handler: async ({ db, actor, body }) => createTopic({ db, actor, input: body }),
  }),
];
