// The Kafka topics endpoints can be defined on.
import { z } from "zod";

import { listKafkaTopics } from "../../kafka/admin";
import { defineRoute } from "../route";

const topic = z.object({ name: z.string(), partitions: z.number().int() }).meta({ id: "KafkaTopic" });

export const topicRoutes = [
  defineRoute({
    method: "GET",
    path: "/topics",
    operationId: "listTopics",
    summary: "List the Kafka topics with their partition counts",
    description: "Internal topics (names starting with __) are left out. Cached for a few seconds; 503 when Kafka is unreachable.",
    tag: "Kafka",
    auth: "editor",
    response: z.object({ items: z.array(topic) }),
    handler: async () => ({ items: await listKafkaTopics() }),
  }),
];
