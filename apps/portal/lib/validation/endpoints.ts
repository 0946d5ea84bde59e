// Input rules for endpoints. Shape and single-field rules are zod; the rules that
// join fields (path vs topic+key, schema only for json, examples against the
// schema) live in checkEndpoint so the API and the forms report them per field.
import { OPERATIONS, REGISTRY_FORMATS, SUBJECT_STRATEGIES, type SubjectStrategy } from "@sluice/db";
import { z } from "zod";

import { pageQuery } from "../pagination";
import { buildPath, keyProblem, paramProblem, parseEndpointPath, PathError, topicProblem } from "../catalog/endpoint-path";
import { MAX_SUBJECT_LENGTH, recordNameProblem, subjectFor } from "../catalog/value-subject";
import type { FieldError } from "../errors";
import { description } from "./apis";
import { compileJsonSchema, describeErrors } from "./json-schema";

export const PAYLOAD_FORMATS = ["json", "text", "bytes", ...REGISTRY_FORMATS] as const;
export type PayloadFormat = (typeof PAYLOAD_FORMATS)[number];
export type RegistryFormat = (typeof REGISTRY_FORMATS)[number];

/** Whether a payload format is registry-backed (Confluent wire format, decoded with the registry). */
export const isRegistryFormat = (format: PayloadFormat): format is RegistryFormat =>
  (REGISTRY_FORMATS as readonly string[]).includes(format);
export const MAX_EXAMPLES = 10;
export const EXAMPLE_MAX_BYTES = 64 * 1024;

const operations = z
  .array(z.enum(OPERATIONS, { error: "must be subscribe or publish" }), "must be a list: subscribe, publish or both")
  .min(1, "choose at least one operation: subscribe, publish or both")
  .transform((ops) => OPERATIONS.filter((op) => ops.includes(op)));
const payloadFormat = z.enum(PAYLOAD_FORMATS, { error: "must be json, text, bytes, avro, protobuf or json-schema" });
/**
 * A registry subject as the caller chooses it (value or key): the subject is
 * computed from the strategy (a `subject` in the input is ignored: it is
 * read-only).
 */
const subjectChoice = (role: "value" | "key") =>
  z.object({
    strategy: z
      .enum(SUBJECT_STRATEGIES, { error: "must be topic, record or topic-record" })
      .default("topic")
      .describe(`Subject name strategy: topic (\`<topic>-${role}\`), record (\`<record>\`), topic-record (\`<topic>-<record>\`)`),
    recordName: z
      .string("must be text")
      .trim()
      .nullable()
      .optional()
      .describe("The record's full name (com.acme.Price): required by the record and topic-record strategies only"),
    version: z
      .number("must be a version number or null (latest)")
      .int("must be a whole number")
      .positive("must be 1 or more")
      .nullable()
      .default(null)
      .describe(
        role === "value"
          ? "The subject version publishes are encoded with; null: the latest"
          : "The subject version path keys are encoded with (to find their partition, and as the key of a publish); null: the latest",
      ),
  });
/** The value schema of a registry format. Omitted for a registry format: the topic strategy, latest version. */
const valueSchema = subjectChoice("value")
  .nullable()
  .describe("For avro, protobuf and json-schema only: the registry subject of the values");
/** The key schema, for any payload format: record keys written by a registry serializer. Omitted or null: plain keys. */
const keySchema = subjectChoice("key")
  .nullable()
  .describe(
    "Any payload format: the registry subject of the record keys, when a registry serializer wrote them; null: plain keys. The key in the path is then the decoded key as JSON text (a string key is itself)",
  );
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
  valueSchema: valueSchema.optional(),
  keySchema: keySchema.optional(),
  description: description.default(""),
  examples: examples.default([]),
});

export const updateEndpointInput = z.object({
  ...target,
  operations: operations.optional(),
  payloadFormat: payloadFormat.optional(),
  jsonSchema: jsonSchema.optional(),
  valueSchema: valueSchema.optional(),
  keySchema: keySchema.optional(),
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
  /** The four value-schema columns: all set for a registry format, all null otherwise. */
  valueSubject: string | null;
  valueSubjectStrategy: SubjectStrategy | null;
  valueRecordName: string | null;
  valueSchemaVersion: number | null;
  /** The four key-schema columns: all null for plain keys (the record strategies set keyRecordName). */
  keySubject: string | null;
  keySubjectStrategy: SubjectStrategy | null;
  keyRecordName: string | null;
  keySchemaVersion: number | null;
  description: string;
  examples: unknown[];
}

/** The value (or key) schema the caller chose, before the subject is computed. */
export interface ValueSchemaDraft {
  strategy: SubjectStrategy;
  recordName?: string | null;
  version: number | null;
}
export type KeySchemaDraft = ValueSchemaDraft;

/** The fields the caller gave, before the path and the subject are resolved. */
export interface EndpointDraft
  extends Omit<
    EndpointFields,
    | "path"
    | "topic"
    | "key"
    | "keyParam"
    | "valueSubject"
    | "valueSubjectStrategy"
    | "valueRecordName"
    | "valueSchemaVersion"
    | "keySubject"
    | "keySubjectStrategy"
    | "keyRecordName"
    | "keySchemaVersion"
  > {
  path?: string;
  topic?: string;
  key?: string | null;
  keyParam?: string | null;
  /** For a registry format; undefined or null there means the topic strategy, latest version. */
  valueSchema?: ValueSchemaDraft | null;
  /** Any format; undefined or null: plain keys. */
  keySchema?: KeySchemaDraft | null;
}

const NO_VALUE_SCHEMA = { valueSubject: null, valueSubjectStrategy: null, valueRecordName: null, valueSchemaVersion: null } as const;
const NO_KEY_SCHEMA = { keySubject: null, keySubjectStrategy: null, keyRecordName: null, keySchemaVersion: null } as const;

/**
 * A chosen subject: its strategy, record name and subject for the topic, or
 * undefined after reporting (as `<field>.recordName` / `<field>.subject`) why
 * the choice names no subject.
 */
function chosenSubject(
  chosen: ValueSchemaDraft,
  role: "value" | "key",
  topic: string | undefined,
  fail: (field: string, message: string) => void,
): { subject: string; strategy: SubjectStrategy; recordName: string | null; version: number | null } | undefined {
  const field = `${role}Schema`;
  const recordName = chosen.recordName === undefined || chosen.recordName === null || chosen.recordName === "" ? null : chosen.recordName;
  const problem =
    chosen.strategy === "topic"
      ? recordName !== null
        ? `is only for the record and topic-record strategies; the topic strategy's subject is <topic>-${role}`
        : undefined
      : recordNameProblem(recordName ?? "");
  if (problem) fail(`${field}.recordName`, problem);
  if (topic === undefined || problem) return undefined;
  const subject = subjectFor(chosen.strategy, topic, recordName, role);
  if (subject.length > MAX_SUBJECT_LENGTH) fail(`${field}.subject`, `"${subject}" is longer than ${MAX_SUBJECT_LENGTH} characters`);
  return { subject, strategy: chosen.strategy, recordName, version: chosen.version };
}

/**
 * The value-schema columns of a draft whose topic is known: the subject from
 * the strategy, or the problems (field, message) with the choice.
 */
function valueSchemaFields(
  draft: EndpointDraft,
  topic: string | undefined,
  fail: (field: string, message: string) => void,
): Pick<EndpointFields, "valueSubject" | "valueSubjectStrategy" | "valueRecordName" | "valueSchemaVersion"> {
  if (!isRegistryFormat(draft.payloadFormat)) {
    if (draft.valueSchema)
      fail(
        "valueSchema",
        `is for the registry formats (avro, protobuf, json-schema); this endpoint is ${draft.payloadFormat}. Remove it or choose one of them`,
      );
    return NO_VALUE_SCHEMA;
  }
  const chosen = chosenSubject(draft.valueSchema ?? { strategy: "topic", version: null }, "value", topic, fail);
  if (!chosen) return NO_VALUE_SCHEMA;
  return {
    valueSubject: chosen.subject,
    valueSubjectStrategy: chosen.strategy,
    valueRecordName: chosen.recordName,
    valueSchemaVersion: chosen.version,
  };
}

/** The key-schema columns of a draft whose topic is known (any format; none: plain keys). */
function keySchemaFields(
  draft: EndpointDraft,
  topic: string | undefined,
  fail: (field: string, message: string) => void,
): Pick<EndpointFields, "keySubject" | "keySubjectStrategy" | "keyRecordName" | "keySchemaVersion"> {
  if (!draft.keySchema) return NO_KEY_SCHEMA;
  const chosen = chosenSubject(draft.keySchema, "key", topic, fail);
  if (!chosen) return NO_KEY_SCHEMA;
  return {
    keySubject: chosen.subject,
    keySubjectStrategy: chosen.strategy,
    keyRecordName: chosen.recordName,
    keySchemaVersion: chosen.version,
  };
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

  const value = valueSchemaFields(draft, where?.topic, fail);
  const keySchemaColumns = keySchemaFields(draft, where?.topic, fail);

  if (errors.length || !where) return { ok: false, errors };
  return {
    ok: true,
    fields: {
      ...where,
      operations: draft.operations,
      payloadFormat: draft.payloadFormat,
      jsonSchema: draft.jsonSchema ?? null,
      ...value,
      ...keySchemaColumns,
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
