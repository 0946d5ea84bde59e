// Every Streaming API's AsyncAPI 3.0 document, as JSON and as YAML downloads.
// Both answer with content-disposition: attachment, so a plain link in the
// portal (session cookie) downloads the file; API clients just read the body.
import { stringify } from "yaml";
import { z } from "zod";

import { documentFileName, getApiDocument } from "../../domain/asyncapi/get-api-document";
import { defineRoute } from "../route";
import { uuid } from "../schemas";

const map = <T extends z.ZodType>(value: T) => z.record(z.string(), value);

const asyncApiDocument = z
  .looseObject({
    asyncapi: z.literal("3.0.0"),
    id: z.string(),
    info: z.looseObject({ title: z.string(), version: z.string(), description: z.string() }),
    defaultContentType: z.string(),
    servers: map(z.looseObject({ host: z.string(), protocol: z.string(), pathname: z.string() })),
    channels: map(z.looseObject({ address: z.string(), messages: map(z.looseObject({})) })),
    operations: map(z.looseObject({ action: z.enum(["send", "receive"]), channel: z.object({ $ref: z.string() }) })),
    components: z.looseObject({ messages: map(z.looseObject({})), securitySchemes: map(z.looseObject({})) }),
  })
  .describe("An AsyncAPI 3.0.0 document (https://www.asyncapi.com/docs/reference/specification/v3.0.0)")
  .meta({ id: "AsyncApiDocument" });

const description =
  "Servers are the gateway's public URLs (WebSocket, SSE, HTTP publish); one channel per endpoint, a receive operation per subscribable endpoint and a send operation per publishable one; payloads carry the endpoint's JSON Schema (draft 2020-12, schemaFormat application/schema+json;version=draft-2020-12). Any signed-in user may read it.";

const download = (body: string, contentType: string, fileName: string) =>
  new Response(body, {
    status: 200,
    headers: { "content-type": contentType, "content-disposition": `attachment; filename="${fileName}"`, "cache-control": "no-store" },
  });

export const asyncApiRoutes = [
  defineRoute({
    method: "GET",
    path: "/apis/{apiId}/asyncapi.json",
    operationId: "getAsyncApiJson",
    summary: "The API's AsyncAPI 3.0 document as JSON",
    description,
    tag: "AsyncAPI",
    auth: "viewer",
    params: z.object({ apiId: uuid }),
    response: asyncApiDocument,
    handler: async ({ db, actor, params }) => {
      const { api, document } = await getApiDocument({ db, actor, apiId: params.apiId });
      return download(JSON.stringify(document, null, 2), "application/json", documentFileName(api, "json"));
    },
  }),
  defineRoute({
    method: "GET",
    path: "/apis/{apiId}/asyncapi.yaml",
    operationId: "getAsyncApiYaml",
    summary: "The API's AsyncAPI 3.0 document as YAML",
    description,
    tag: "AsyncAPI",
    auth: "viewer",
    params: z.object({ apiId: uuid }),
    response: z.string().describe("The same document as asyncapi.json, in YAML"),
    responseContentType: "application/yaml",
    handler: async ({ db, actor, params }) => {
      const { api, document } = await getApiDocument({ db, actor, apiId: params.apiId });
      // Shared objects (the security requirement) are written out each time, not as YAML anchors.
      const yaml = stringify(document, { aliasDuplicateObjects: false, lineWidth: 0 });
      return download(yaml, "application/yaml; charset=utf-8", documentFileName(api, "yaml"));
    },
  }),
];
