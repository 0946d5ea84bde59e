// Streaming APIs: the named, versioned groups endpoints belong to.
import { z } from "zod";

import { createApi } from "../../domain/apis/create-api";
import { deleteApi } from "../../domain/apis/delete-api";
import { getApi } from "../../domain/apis/get-api";
import { listApis } from "../../domain/apis/list-apis";
import { updateApi } from "../../domain/apis/update-api";
import { createApiInput, listApisQuery, updateApiInput } from "../../validation/apis";
import { pageSchema } from "../../pagination";
import { defineRoute } from "../route";
import { timestamp, uuid } from "../schemas";

export const streamingApi = z
  .object({
    id: z.uuid(),
    name: z.string(),
    version: z.string(),
    description: z.string(),
    tags: z.array(z.string()),
    ownerId: z.uuid().nullable(),
    owner: z.object({ id: z.uuid(), email: z.string(), displayName: z.string() }).nullable(),
    endpointCount: z.number().int(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: "StreamingApi" });

const apiIdParam = z.object({ apiId: uuid });

export const apiRoutes = [
  defineRoute({
    method: "GET",
    path: "/apis",
    operationId: "listApis",
    summary: "List and search Streaming APIs",
    description: "Sorted by name and version. `q` searches name, description and tags; `tag` keeps APIs with that tag.",
    tag: "APIs",
    auth: "viewer",
    query: listApisQuery,
    response: pageSchema(streamingApi),
    handler: async ({ db, actor, query }) => listApis({ db, actor, query }),
  }),
  defineRoute({
    method: "POST",
    path: "/apis",
    operationId: "createApi",
    summary: "Create a Streaming API",
    description: "The owner defaults to the caller. Name + version must be unique (409 naming `version`).",
    tag: "APIs",
    auth: "editor",
    body: createApiInput,
    status: 201,
    response: streamingApi,
    handler: async ({ db, actor, body }) => createApi({ db, actor, input: body }),
  }),
  defineRoute({
    method: "GET",
    path: "/apis/{apiId}",
    operationId: "getApi",
    summary: "Get a Streaming API",
    tag: "APIs",
    auth: "viewer",
    params: apiIdParam,
    response: streamingApi,
    handler: async ({ db, actor, params }) => getApi({ db, actor, apiId: params.apiId }),
  }),
  defineRoute({
    method: "PATCH",
    path: "/apis/{apiId}",
    operationId: "updateApi",
    summary: "Change a Streaming API",
    description: "Omitted fields keep their value. A new name or version is pushed to the gateways with every endpoint of the API.",
    tag: "APIs",
    auth: "editor",
    params: apiIdParam,
    body: updateApiInput,
    response: streamingApi,
    handler: async ({ db, actor, params, body }) => updateApi({ db, actor, apiId: params.apiId, input: body }),
  }),
  defineRoute({
    method: "DELETE",
    path: "/apis/{apiId}",
    operationId: "deleteApi",
    summary: "Delete a Streaming API and all its endpoints",
    description: "Gateways end the subscriptions of every endpoint of the API.",
    tag: "APIs",
    auth: "editor",
    params: apiIdParam,
    response: null,
    handler: async ({ db, actor, params }) => {
      await deleteApi({ db, actor, apiId: params.apiId });
    },
  }),
];
