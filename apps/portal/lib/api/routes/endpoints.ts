// Streaming endpoints: `/topic/key` or `/topic/{param}` on an existing Kafka topic.
import { OPERATIONS } from "@sluice/db";
import { z } from "zod";

import { SUBJECT_STRATEGIES } from "../../catalog/value-subject";
import { createEndpoint } from "../../domain/endpoints/create-endpoint";
import { deleteEndpoint } from "../../domain/endpoints/delete-endpoint";
import { getEndpoint } from "../../domain/endpoints/get-endpoint";
import { listEndpoints } from "../../domain/endpoints/list-endpoints";
import { updateEndpoint } from "../../domain/endpoints/update-endpoint";
import { getEndpointKeySchema } from "../../domain/registry/get-endpoint-key-schema";
import { getEndpointValueSchema } from "../../domain/registry/get-endpoint-value-schema";
import { createEndpointInput, listEndpointsQuery, PAYLOAD_FORMATS, updateEndpointInput } from "../../validation/endpoints";
import { pageSchema } from "../../pagination";
import { defineRoute } from "../route";
import { timestamp, uuid } from "../schemas";

const apiRef = z.object({ id: z.uuid(), name: z.string(), version: z.string() });

const endpointCore = {
  id: z.uuid(),
  apiId: z.uuid(),
  api: apiRef,
  path: z.string().describe("Canonical path: /topic/key (percent-encoded) or /topic/{param}"),
  topic: z.string(),
  key: z.string().nullable().describe("The exact record key, or null for a parameterised endpoint"),
  keyParam: z.string().nullable().describe("The parameter of /topic/{param}, or null for an exact key"),
  operations: z.array(z.enum(OPERATIONS)),
  payloadFormat: z.enum(PAYLOAD_FORMATS),
  description: z.string(),
  createdAt: timestamp,
  updatedAt: timestamp,
};

const subjectOf = (role: "value" | "key", version: string) =>
  z.object({
    strategy: z
      .enum(SUBJECT_STRATEGIES)
      .describe(`Subject name strategy: topic (\`<topic>-${role}\`), record (\`<record>\`), topic-record (\`<topic>-<record>\`)`),
    recordName: z.string().nullable().describe("The record's full name (record strategies), else null"),
    subject: z.string().describe("The registry subject, computed from the strategy (read-only)"),
    version: z.number().int().nullable().describe(version),
  });
const valueSchema = subjectOf("value", "The subject version publishes are encoded with; null: the latest").meta({ id: "ValueSchema" });
const keySchema = subjectOf(
  "key",
  "The subject version path keys are encoded with (their partition, and the key of a publish); null: the latest",
).meta({ id: "KeySchema" });

const endpoint = z
  .object({
    ...endpointCore,
    jsonSchema: z.record(z.string(), z.unknown()).nullable().describe("JSON Schema draft 2020-12 of the messages (json endpoints only)"),
    valueSchema: valueSchema.nullable().describe("The registry subject of the values (avro, protobuf and json-schema endpoints only)"),
    keySchema: keySchema
      .nullable()
      .describe(
        "The registry subject of the record keys (any payload format), or null for plain keys. With one, the key in the path is the decoded key as JSON text: a string key is itself, any other key its compact JSON",
      ),
    examples: z.array(z.unknown()),
  })
  .meta({ id: "Endpoint" });

/** A subject version as the registry has it. */
export const subjectVersion = z
  .object({
    subject: z.string(),
    version: z.number().int(),
    id: z.number().int().describe("The schema id, the one records carry in their wire-format header"),
    schemaType: z.enum(["AVRO", "PROTOBUF", "JSON"]),
    schema: z.string().describe("The schema text: Avro JSON, a .proto file, or a JSON Schema"),
    references: z.array(z.object({ name: z.string(), subject: z.string(), version: z.number().int() })),
  })
  .meta({ id: "SubjectVersion" });

const endpointSummary = z.object({ ...endpointCore, hasSchema: z.boolean() }).meta({ id: "EndpointSummary" });

const endpointIdParam = z.object({ endpointId: uuid });

export const endpointRoutes = [
  defineRoute({
    method: "GET",
    path: "/apis/{apiId}/endpoints",
    operationId: "listApiEndpoints",
    summary: "List and search the endpoints of an API",
    description: "Sorted by path. `q` searches path and description.",
    tag: "Endpoints",
    auth: "viewer",
    params: z.object({ apiId: uuid }),
    query: listEndpointsQuery,
    response: pageSchema(endpointSummary),
    handler: async ({ db, actor, params, query }) => listEndpoints({ db, actor, apiId: params.apiId, query }),
  }),
  defineRoute({
    method: "POST",
    path: "/apis/{apiId}/endpoints",
    operationId: "createEndpoint",
    summary: "Add an endpoint to an API",
    description:
      "Give either `path` (`/prices/AAPL`, `/prices/{symbol}`) or `topic` with `key` or `keyParam`. The topic must exist in Kafka (503 when Kafka is unreachable). A `jsonSchema` (draft 2020-12) is allowed only for the json format; `examples` must match it. The registry formats (avro, protobuf, json-schema) need the portal's schema registry (SCHEMA_REGISTRY_URL): `valueSchema` chooses the subject strategy (default topic: `<topic>-value`), the subject must exist there and a pinned `version` too (422 naming `valueSchema.subject` / `valueSchema.version`; 503 when the registry is unreachable). `keySchema` (any format) names the registry subject of record keys a registry serializer wrote (topic strategy: `<topic>-key`), checked the same way (422 naming `keySchema` without a registry); an exact `key` must then be a value of the key schema: a string key is itself, any other key its compact JSON with fields in the schema's order (422 on `key`).",
    tag: "Endpoints",
    auth: "editor",
    params: z.object({ apiId: uuid }),
    body: createEndpointInput,
    status: 201,
    response: endpoint,
    handler: async ({ db, actor, params, body }) => createEndpoint({ db, actor, apiId: params.apiId, input: body }),
  }),
  defineRoute({
    method: "GET",
    path: "/endpoints",
    operationId: "listEndpoints",
    summary: "List and search all endpoints of the catalog",
    tag: "Endpoints",
    auth: "viewer",
    query: listEndpointsQuery,
    response: pageSchema(endpointSummary),
    handler: async ({ db, actor, query }) => listEndpoints({ db, actor, query }),
  }),
  defineRoute({
    method: "GET",
    path: "/endpoints/{endpointId}",
    operationId: "getEndpoint",
    summary: "Get an endpoint with its schema and examples",
    tag: "Endpoints",
    auth: "viewer",
    params: endpointIdParam,
    response: endpoint,
    handler: async ({ db, actor, params }) => getEndpoint({ db, actor, endpointId: params.endpointId }),
  }),
  defineRoute({
    method: "PATCH",
    path: "/endpoints/{endpointId}",
    operationId: "updateEndpoint",
    summary: "Change an endpoint",
    description:
      "Omitted fields keep their value; `jsonSchema: null` removes the schema. A changed topic must exist in Kafka. A changed value subject (strategy, record name, topic with the topic strategy), pinned version or format is checked against the schema registry; a move to json, text or bytes drops `valueSchema`. Likewise a changed key subject, its pinned version or the exact key; `keySchema: null` makes the keys plain again.",
    tag: "Endpoints",
    auth: "editor",
    params: endpointIdParam,
    body: updateEndpointInput,
    response: endpoint,
    handler: async ({ db, actor, params, body }) => updateEndpoint({ db, actor, endpointId: params.endpointId, input: body }),
  }),
  defineRoute({
    method: "GET",
    path: "/endpoints/{endpointId}/value-schema",
    operationId: "getEndpointValueSchema",
    summary: "Get the registry schema of an endpoint's values",
    description:
      "The endpoint's subject at its pinned version, or the latest. 404 for json, text and bytes endpoints; 503 when the registry is unreachable.",
    tag: "Endpoints",
    auth: "viewer",
    params: endpointIdParam,
    response: subjectVersion,
    handler: async ({ db, actor, params }) => getEndpointValueSchema({ db, actor, endpointId: params.endpointId }),
  }),
  defineRoute({
    method: "GET",
    path: "/endpoints/{endpointId}/key-schema",
    operationId: "getEndpointKeySchema",
    summary: "Get the registry schema of an endpoint's record keys",
    description:
      "The endpoint's key subject at its pinned version, or the latest. 404 for an endpoint with plain keys; 503 when the registry is unreachable.",
    tag: "Endpoints",
    auth: "viewer",
    params: endpointIdParam,
    response: subjectVersion,
    handler: async ({ db, actor, params }) => getEndpointKeySchema({ db, actor, endpointId: params.endpointId }),
  }),
  defineRoute({
    method: "DELETE",
    path: "/endpoints/{endpointId}",
    operationId: "deleteEndpoint",
    summary: "Delete an endpoint",
    description: "Gateways end its subscriptions.",
    tag: "Endpoints",
    auth: "editor",
    params: endpointIdParam,
    response: null,
    handler: async ({ db, actor, params }) => {
      await deleteEndpoint({ db, actor, endpointId: params.endpointId });
    },
  }),
];
