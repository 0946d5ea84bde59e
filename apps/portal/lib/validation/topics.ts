import { z } from "zod";

import { topicProblem } from "../catalog/endpoint-path";

/** More partitions than a trial or most single topics need; a larger count is a decision for the Kafka team's own tools. */
export const MAX_TOPIC_PARTITIONS = 100;

export const createTopicInput = z.object({
  name: z
    .string()
    .trim()
    .superRefine((name, ctx) => {
      const problem = topicProblem(name);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
      else if (name.startsWith("__"))
        ctx.addIssue({ code: "custom", message: "may not start with __ (Kafka's and Sluice's internal topics)" });
    })
    .describe("Kafka's rule for topic names: 1–249 characters of A–Z a–z 0–9 . _ -, not . or .., and not starting with __"),
  partitions: z
    .number({ error: "must be a whole number" })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(MAX_TOPIC_PARTITIONS, `must be at most ${MAX_TOPIC_PARTITIONS}`)
    .default(1)
    .describe(`Partitions, 1–${MAX_TOPIC_PARTITIONS}; default 1`),
});

export type CreateTopicInput = z.output<typeof createTopicInput>;
