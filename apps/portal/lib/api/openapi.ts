// Builds the OpenAPI 3.1 document from the route definitions. Zod schemas become
// JSON Schema 2020-12 (OpenAPI 3.1's dialect); schemas with a `.meta({ id })` are
// shared under components.schemas.
import { z } from "zod";

import type { RouteDef } from "./route";
import { allRoutes } from "./routes";

type JsonSchema = Record<string, unknown>;

const problemSchema: JsonSchema = {
  type: "object",
  description: "RFC 9457 problem details. `errors` names each bad field.",
  required: ["type", "title", "status", "detail"],
  properties: {
    type: { type: "string" },
    title: { type: "string" },
    status: { type: "integer" },
    detail: { type: "string" },
    errors: {
      type: "array",
      items: { type: "object", required: ["field", "message"], properties: { field: { type: "string" }, message: { type: "string" } } },
    },
  },
};

export function buildOpenApiDocument(routes: RouteDef[] = allRoutes) {
  const components: Record<string, JsonSchema> = { Problem: problemSchema };

  const convert = (schema: z.ZodType, io: "input" | "output"): JsonSchema => {
    const json = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as JsonSchema;
    const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
    delete json.$defs;
    delete json.$schema;
    for (const [id, def] of Object.entries(defs)) components[id] = rewriteRefs(def) as JsonSchema;
    return rewriteRefs(json) as JsonSchema;
  };

  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const parameters: unknown[] = [];
    for (const [where, schema] of [
      ["path", route.params],
      ["query", route.query],
    ] as const) {
      if (!schema) continue;
      const json = convert(schema, "input");
      const required = new Set((json.required as string[] | undefined) ?? []);
      for (const [name, prop] of Object.entries((json.properties ?? {}) as Record<string, JsonSchema>)) {
        const { description, ...rest } = prop;
        parameters.push({
          name,
          in: where,
          required: where === "path" || required.has(name),
          schema: rest,
          ...(description ? { description } : {}),
        });
      }
    }
    const success = String(route.status ?? (route.response === null ? 204 : 200));
    const body =
      route.response === null
        ? { description: "Done" }
        : {
            description: "Success",
            content: {
              [route.responseContentType ?? "application/json"]: { schema: convert(route.response, "output") },
              ...Object.fromEntries((route.alternateContentTypes ?? []).map((type) => [type, { schema: { type: "string" } }])),
            },
          };
    const responses: Record<string, unknown> = {
      [success]: body,
      ...Object.fromEntries((route.otherStatuses ?? []).map((status) => [String(status), body])),
      default: {
        description: "An error (problem+json naming the bad field)",
        content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
      },
    };
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: [route.tag],
      ...(route.auth === "public" ? { security: [] } : { "x-sluice-role": route.auth }),
      ...(parameters.length ? { parameters } : {}),
      ...(route.body ? { requestBody: { required: true, content: { "application/json": { schema: convert(route.body, "input") } } } } : {}),
      responses,
    };
  }

  return {
    openapi: "3.1.0",
    info: {
      title: "Sluice management API",
      version: "1.0.0",
      description:
        "Manage Streaming APIs, endpoints, apps, grants, tokens and signing keys. Authenticate with a personal API key (Authorization: Bearer slk_…) created in the portal under Settings. Each operation names the least role it needs in x-sluice-role. Errors are RFC 9457 problem+json.",
    },
    servers: [{ url: "/api/v1" }],
    security: [{ apiKey: [] }],
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: { apiKey: { type: "http", scheme: "bearer", description: "A personal API key, slk_…" } },
      schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
    },
  };
}

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === "$ref" && typeof v === "string" ? v.replace(/^#\/\$defs\//, "#/components/schemas/") : rewriteRefs(v),
      ]),
    );
  }
  return value;
}
