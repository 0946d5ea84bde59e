// Input rules for endpoints. Shape and single-field rules are zod; the rules that
// join fields (path vs topic+key, schema only for json, examples against the
// schema) live in checkEndpoint so the API and the forms report them per field.
import { OPERATIONS } from "@sluice/db";
import { z } from "zod";

import { pageQuery } from "../pagination";
import { buildPath, keyProblem, paramProblem, parseEndpointPath, PathError, topicProblem } from "../catalog/endpoint-path";
import type { FieldError } from "../errors";
import { description } from "./apis";
import { compileJsonSchema, describeErrors } from "./json-schema";

export const PAYLOAD_FORMATS = ["json", "text", "bytes"] as const;
export type PayloadFormat = (typeof PAYLOAD_FORMATS)[number];
export const MAX_EXAMPLES = 10;
export const EXAMPLE_MAX_BYTES = 64 * 1024;

const operations = z
  .array(z.enum(OPERATIONS, { error: "must be subscribe or publish" }), "must be a list: subscribe, publish or both")
  .min(1, "choose at least one operation: subscribe, publish or both")
  .transform((ops) => OPERATIONS.filter((op) => ops.includes(op)));
const payloadFormat = z.enum(PAYLOAD_FORMATS, { error: "must be json, text or bytes" });
const jsonSchema = z.record(z.string(), z.unknown(), "must be a JSON object (a JSON Schema, draft 2020-12)").nullable();
const examples = z.array(z.unknown(), "must be a list of example messages").max(MAX_EXAMPLES, `at most ${MAX_EXAMPLES} examples`);

const target = {
  path: z
    .string("must be text")
    .max(3000, "is too long")
    .optional()
    .describe("`/topic/key` or `/topic/{param}`; alternative to topic + key/keyParam"),
  topic: z.string("must be text").optional().describe("The Kafka topic (must exist)"),
  key: z.string("must be text").optional().describe("The exact record key (may contain /)"),
  keyParam: z.string("must be text").optional().describe("A parameter name: the endpoint /topic/{keyParam} covers every key of the topic"),
};

export const createEndpointInput = z.object({
  ...target,
  operations,
  payloadFormat: payloadFormat.default("json"),
  jsonSchema: jsonSchema.optional(),
  description: description.default(""),
  examples: examples.default([]),
});

export const updateEndpointInput = z.object({
  ...target,
  operations: operations.optional(),
  payloadFormat: payloadFormat.optional(),
  jsonSchema: jsonSchema.optional(),
  description: description.optional(),
  examples: examples.optional(),
});

export const listEndpointsQuery = pageQuery.extend({
  q: z.string().trim().max(200, "must be at most 200 characters").optional().describe("Searches path and description (case-insensitive)"),
});

/** ListEndpointsQuery is listEndpointsQuery after parsing: what the domain function takes, already validated. */
export type ListEndpointsQuery = z.output<typeof listEndpointsQuery>;

export type CreateEndpointInput = z.output<typeof createEndpointInput>;
export type UpdateEndpointInput = z.output<typeof updateEndpointInput>;

/** An endpoint's fields after every check: what is stored. */
export interface EndpointFields {
  path: string;
  topic: string;
  key: string | null;
  keyParam: string | null;
  operations: (typeof OPERATIONS)[number][];
  payloadFormat: PayloadFormat;
  jsonSchema: Record<string, unknown> | null;
  description: string;
  examples: unknown[];
}

/** The fields the caller gave, before the path is resolved. */
export interface EndpointDraft extends Omit<EndpointFields, "path" | "topic" | "key" | "keyParam"> {
  path?: string;
  topic?: string;
  key?: string | null;
  keyParam?: string | null;
}

/**
 * Resolves the path and checks the rules between fields. Returns the fields to
 * store, or every problem found (the caller throws them as one 422).
 */
export function checkEndpoint(draft: EndpointDraft): { ok: true; fields: EndpointFields } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const fail = (field: string, message: string) => errors.push({ field, message });

  let where: Pick<EndpointFields, "path" | "topic" | "key" | "keyParam"> | undefined;
  const hasKey = draft.key !== undefined && draft.key !== null;
  const hasParam = draft.keyParam !== undefined && draft.keyParam !== null;
  if (draft.path !== undefined) {
    if (draft.topic !== undefined || hasKey || hasParam) fail("path", "give either a path or topic with key/keyParam, not both");
    else {
      try {
        where = parseEndpointPath(draft.path.trim());
      } catch (err) {
        if (!(err instanceof PathError)) throw err;
        fail("path", err.message);
      }
    }
  } else {
    const topic = draft.topic?.trim() ?? "";
    const topicIssue = topic === "" ? "is required: the Kafka topic the endpoint reads and writes" : topicProblem(topic);
    if (topicIssue) fail("topic", topicIssue);
    else if (topic.startsWith("__")) fail("topic", "is an internal topic (its name starts with __) and cannot be exposed");
    if (hasKey && hasParam) fail("keyParam", "give either key (one exact record key) or keyParam (every key), not both");
    else if (!hasKey && !hasParam) fail("key", "is required: give an exact record key, or keyParam for /topic/{param}");
    else if (hasKey) {
      const issue = keyProblem(draft.key!);
      if (issue) fail("key", issue);
      else if (!topicIssue) where = { path: buildPath(topic, { key: draft.key! }), topic, key: draft.key!, keyParam: null };
    } else {
      const issue = paramProblem(draft.keyParam!);
      if (issue) fail("keyParam", issue);
      else if (!topicIssue) where = { path: buildPath(topic, { keyParam: draft.keyParam! }), topic, key: null, keyParam: draft.keyParam! };
    }
  }
  if (where?.topic.startsWith("__") && draft.path !== undefined)
    fail("path", "names an internal topic (its name starts with __), which cannot be exposed");

  let validate: ReturnType<typeof compileJsonSchema> | undefined;
  if (draft.jsonSchema) {
    if (draft.payloadFormat !== "json")
      fail("jsonSchema", `only json endpoints can have a schema; this one is ${draft.payloadFormat}. Remove the schema or choose json`);
    else {
      validate = compileJsonSchema(draft.jsonSchema);
      if (!validate.ok) fail("jsonSchema", validate.message);
    }
  }

  for (const [i, example] of draft.examples.entries()) {
    const problem = exampleProblem(example, draft.payloadFormat);
    if (problem) fail(`examples.${i}`, problem);
    else if (validate?.ok && !validate.validate(example))
      fail(`examples.${i}`, `does not match the schema: ${describeErrors(validate.validate.errors)}`);
  }

  if (errors.length || !where) return { ok: false, errors };
  return {
    ok: true,
    fields: {
      ...where,
      operations: draft.operations,
      payloadFormat: draft.payloadFormat,
      jsonSchema: draft.jsonSchema ?? null,
      description: draft.description,
      examples: draft.examples,
    },
  };
}

/** Why an example cannot be a message of this payload format, or undefined when it can. */
function exampleProblem(example: unknown, format: PayloadFormat): string | undefined {
  if (example === undefined) return "is missing";
  if (Buffer.byteLength(JSON.stringify(example), "utf8") > EXAMPLE_MAX_BYTES) return `must be at most ${EXAMPLE_MAX_BYTES / 1024} KB`;
  if (format === "text" && typeof example !== "string") return "must be a string: this endpoint's payload format is text";
  if (format === "bytes" && (typeof example !== "string" || !isBase64(example)))
    return "must be a base64 string: this endpoint's payload format is bytes";
  return undefined;
}

function isBase64(text: string): boolean {
  return /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text);
}
