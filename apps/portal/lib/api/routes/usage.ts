// Usage (traffic) of the whole installation, an API, an endpoint or an app, and
// the gateway nodes, all from the usage records the gateways report and the
// bridge aggregates. Who sees what is the domain's rule (usage-scope.ts): the
// routes let every signed-in user in and the scope refuses what is not theirs.
//
// CSV: the series routes answer text/csv for `?format=csv` (works from a plain
// link) or for `Accept: text/csv` without a format; `format=json` forces JSON.
import { z } from "zod";

import type { Actor } from "../../auth/actor";
import type { Database } from "../../db";
import { getUsage, type Usage } from "../../domain/usage/get-usage";
import { listGatewayNodes } from "../../domain/usage/list-gateway-nodes";
import { usageCsv } from "../../domain/usage/usage-csv";
import { USAGE_RANGES } from "../../domain/usage/usage-range";
import { allUsageScope, apiUsageScope, appUsageScope, endpointUsageScope, type UsageScope } from "../../domain/usage/usage-scope";
import { defineRoute } from "../route";
import { timestamp, uuid } from "../schemas";

const usageQuery = z.object({
  range: z.enum(USAGE_RANGES).default("hour").describe("hour and day: one point per minute; week: one point per hour"),
  format: z.enum(["json", "csv"]).optional().describe("csv: the points as CSV (also chosen by Accept: text/csv)"),
});

const rateOrCount = z.number().nonnegative();
const usagePoint = z
  .object({
    time: timestamp.describe("Start of the bucket"),
    deliveredPerSecond: rateOrCount.describe("Messages delivered to clients per second, averaged over the bucket"),
    deliveredBytesPerSecond: rateOrCount,
    publishedPerSecond: rateOrCount.describe("Messages published by clients (acknowledged by Kafka) per second"),
    publishedBytesPerSecond: rateOrCount,
    subscriptions: z.int().nonnegative().describe("Peak subscriptions in the bucket"),
    connections: z.int().nonnegative().nullable().describe("Peak connections in the bucket; null for an API or endpoint"),
    errors: z.int().nonnegative().describe("Error frames and problem answers sent in the bucket"),
    refusedConnections: z.int().nonnegative().nullable().describe("Connections refused by a quota; null for an API or endpoint"),
    refusedSubscriptions: z.int().nonnegative(),
    refusedPublish: z.int().nonnegative(),
    refusedDelivered: z.int().nonnegative(),
  })
  .meta({ id: "UsagePoint" });

const totals = {
  delivered: z.int().nonnegative(),
  deliveredBytes: z.int().nonnegative(),
  published: z.int().nonnegative(),
  publishedBytes: z.int().nonnegative(),
  errors: z.int().nonnegative(),
  refused: z.int().nonnegative().describe("Quota refusals of subscriptions, publishes and deliveries"),
};

const usageSchema = z
  .object({
    scope: z.object({
      kind: z.enum(["all", "api", "endpoint", "app"]),
      id: z.uuid().nullable(),
      name: z.string().describe("The API's name, the endpoint's path or the app's name; `all` for everything"),
    }),
    range: z.enum(USAGE_RANGES),
    bucketSeconds: z.int().positive(),
    from: timestamp,
    to: timestamp.describe("Start of the last (current) bucket"),
    points: z.array(usagePoint),
    totals: z.object(totals),
    topApps: z.array(z.object({ appId: z.uuid(), name: z.string().nullable().describe("null: the app was deleted"), ...totals })),
    topEndpoints: z.array(
      z.object({
        endpointId: z.uuid(),
        path: z.string(),
        apiId: z.uuid().nullable().describe("null: the endpoint was deleted"),
        apiName: z.string().nullable(),
        ...totals,
      }),
    ),
  })
  .meta({ id: "Usage" });

const nodeSchema = z
  .object({
    node: z.string(),
    version: z.string(),
    startedAt: timestamp,
    uptimeSeconds: z.int().nonnegative(),
    lastSeenAt: timestamp.describe("End of the node's last reporting interval"),
    intervalMs: z.int().positive(),
    connections: z.int().nonnegative(),
    catalogOffsetLag: z.int().nonnegative().describe("Catalog records the node had not applied yet"),
    final: z.boolean().describe("The last record was the one of a graceful stop"),
    live: z.boolean().describe("Reported within three intervals and not stopped"),
  })
  .meta({ id: "GatewayNode" });

const wantsCsv = (request: Request, format: "json" | "csv" | undefined) =>
  format ? format === "csv" : /\btext\/csv\b/i.test(request.headers.get("accept") ?? "");

function scopeOut(scope: UsageScope) {
  switch (scope.kind) {
    case "all":
      return { kind: scope.kind, id: null, name: "all" };
    case "api":
      return { kind: scope.kind, id: scope.apiId, name: scope.name };
    case "endpoint":
      return { kind: scope.kind, id: scope.endpointId, name: scope.path };
    case "app":
      return { kind: scope.kind, id: scope.appId, name: scope.name };
  }
}

async function answer(options: {
  db: Database;
  request: Request;
  scope: UsageScope;
  query: z.output<typeof usageQuery>;
}): Promise<Response | ReturnType<typeof usageBody>> {
  const usage = await getUsage({ db: options.db, scope: options.scope, range: options.query.range });
  if (wantsCsv(options.request, options.query.format)) {
    const scope = scopeOut(options.scope);
    const name = `sluice-usage-${scope.kind}${scope.id ? `-${scope.id}` : ""}-${options.query.range}.csv`;
    return new Response(usageCsv(usage.points), {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="${name}"`,
        "cache-control": "no-store",
      },
    });
  }
  return usageBody(options.scope, usage);
}

function usageBody(scope: UsageScope, usage: Usage) {
  return {
    scope: scopeOut(scope),
    range: usage.window.range,
    bucketSeconds: usage.window.bucketSeconds,
    from: usage.window.from,
    to: usage.window.to,
    points: usage.points,
    totals: usage.totals,
    topApps: usage.topApps,
    topEndpoints: usage.topEndpoints,
  };
}

const usageRoute = <P extends z.ZodType | undefined>(def: {
  path: string;
  operationId: string;
  summary: string;
  description: string;
  auth: "viewer" | "editor";
  params?: P;
  scope: (o: { db: Database; actor: Actor; params: P extends z.ZodType ? z.output<P> : undefined }) => Promise<UsageScope> | UsageScope;
}) =>
  defineRoute({
    method: "GET",
    path: def.path,
    operationId: def.operationId,
    summary: def.summary,
    description: `${def.description} Answers CSV (the points) for ?format=csv or Accept: text/csv.`,
    tag: "Usage",
    auth: def.auth,
    params: def.params as z.ZodType | undefined,
    query: usageQuery,
    response: usageSchema,
    alternateContentTypes: ["text/csv"],
    handler: async ({ db, actor, params, query, request }) =>
      answer({ db, request, query, scope: await def.scope({ db, actor, params: params as never }) }),
  });

export const usageRoutes = [
  usageRoute({
    path: "/usage",
    operationId: "getUsage",
    summary: "Traffic of every API (editors and admins)",
    description:
      "Messages and bytes per second, connections, subscriptions, errors and quota refusals over the range, with the top apps and endpoints.",
    auth: "editor",
    scope: ({ actor }) => allUsageScope(actor),
  }),
  usageRoute({
    path: "/apis/{apiId}/usage",
    operationId: "getApiUsage",
    summary: "Traffic of an API (its owner, editors and admins)",
    description: "Summed over its endpoints and every app, with the top apps and endpoints. Others get 403.",
    auth: "viewer",
    params: z.object({ apiId: uuid }),
    scope: ({ db, actor, params }) => apiUsageScope({ db, actor, apiId: params.apiId }),
  }),
  usageRoute({
    path: "/endpoints/{endpointId}/usage",
    operationId: "getEndpointUsage",
    summary: "Traffic of an endpoint (its API's owner, editors and admins)",
    description: "Summed over every app, with the top apps. Others get 403.",
    auth: "viewer",
    params: z.object({ endpointId: uuid }),
    scope: ({ db, actor, params }) => endpointUsageScope({ db, actor, endpointId: params.endpointId }),
  }),
  usageRoute({
    path: "/apps/{appId}/usage",
    operationId: "getAppUsage",
    summary: "Traffic of an app (its owner, editors and admins)",
    description: "The app's connections and its traffic on every endpoint, with its top endpoints. Anyone else gets 404, as for the app.",
    auth: "viewer",
    params: z.object({ appId: uuid }),
    scope: ({ db, actor, params }) => appUsageScope({ db, actor, appId: params.appId }),
  }),
  defineRoute({
    method: "GET",
    path: "/gateway-nodes",
    operationId: "listGatewayNodes",
    summary: "Gateway nodes (editors and admins)",
    description:
      "Every node that reported usage within the last hour, live ones first: version, uptime, connections, catalog lag, last seen.",
    tag: "Usage",
    auth: "editor",
    response: z.object({ items: z.array(nodeSchema) }),
    handler: async ({ db, actor }) => ({ items: await listGatewayNodes({ db, actor }) }),
  }),
];
