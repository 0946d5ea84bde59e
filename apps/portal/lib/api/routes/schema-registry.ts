// The schema registry's subjects, for defining endpoints of the registry formats.
import { z } from "zod";

import { topicProblem } from "../../catalog/endpoint-path";
import { SUBJECT_ROLES, SUBJECT_STRATEGIES } from "../../catalog/value-subject";
import { getSubjectVersion } from "../../domain/registry/get-subject-version";
import { listTopicSubjects } from "../../domain/registry/list-topic-subjects";
import { defineRoute } from "../route";
import { subjectVersion } from "./endpoints";

const topicSubject = z
  .object({
    subject: z.string(),
    role: z.enum(SUBJECT_ROLES).describe("The side of the records the subject is listed for: the `role` asked for"),
    strategy: z.enum(SUBJECT_STRATEGIES).describe("The strategy that names this subject for the topic"),
    recordName: z.string().nullable().describe("The record's full name for the record strategies, else null"),
  })
  .meta({ id: "TopicSubject" });

const topicParam = z.object({
  topic: z.string().superRefine((topic, ctx) => {
    const problem = topicProblem(topic);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  }),
});

export const schemaRegistryRoutes = [
  defineRoute({
    method: "GET",
    path: "/topics/{topic}/subjects",
    operationId: "listTopicSubjects",
    summary: "List the registry subjects an endpoint on a topic may use",
    description:
      "From the schema registry's subjects, for the values (`role=value`, the default) or the record keys (`role=key`): `<topic>-value` or `<topic>-key` (strategy topic), `<topic>-<record>` (topic-record) and every subject that is a record's full name (record), in that order. The record strategies' subjects do not say which side they describe, so both lists offer them. `configured` is false, and the list empty, when the portal has no registry (SCHEMA_REGISTRY_URL). 503 when the registry is unreachable.",
    tag: "Schema registry",
    auth: "editor",
    params: topicParam,
    query: z.object({
      role: z.enum(SUBJECT_ROLES, { error: "must be value or key" }).default("value").describe("Which side's subjects: value or key"),
    }),
    response: z.object({ configured: z.boolean(), items: z.array(topicSubject) }),
    handler: async ({ actor, params, query }) => listTopicSubjects({ actor, topic: params.topic, role: query.role }),
  }),
  defineRoute({
    method: "GET",
    path: "/subjects/{subject}/versions/{version}",
    operationId: "getSubjectVersion",
    summary: "Get one version of a registry subject with its schema",
    description:
      "`version` is a version number or `latest`. 404 when the subject or version does not exist; 422 when the portal has no registry; 503 when it is unreachable.",
    tag: "Schema registry",
    auth: "editor",
    params: z.object({
      subject: z.string().min(1, "is required").max(255, "must be at most 255 characters"),
      version: z.union([z.literal("latest"), z.coerce.number().int().positive()], "must be a version number or latest"),
    }),
    response: subjectVersion,
    handler: async ({ actor, params }) => getSubjectVersion({ actor, subject: params.subject, version: params.version }),
  }),
];
