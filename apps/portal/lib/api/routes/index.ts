// Every /api/v1 operation, grouped by area. Add a route by adding it to its
// area's list; the router and the OpenAPI document both read this one array.
import type { RouteDef } from "../route";
import { accessRequestRoutes } from "./access-requests";
import { accountRoutes } from "./account";
import { apiRoutes } from "./apis";
import { appRoutes } from "./apps";
import { asyncApiRoutes } from "./asyncapi";
import { auditRoutes } from "./audit";
import { clientRoutes } from "./clients";
import { consoleRoutes } from "./console";
import { endpointRoutes } from "./endpoints";
import { planRoutes } from "./plans";
import { schemaRegistryRoutes } from "./schema-registry";
import { signingKeyRoutes } from "./signing-keys";
import { tokenRoutes } from "./tokens";
import { topicRoutes } from "./topics";
import { webhookRoutes } from "./webhooks";
import { usageRoutes } from "./usage";

export const allRoutes: RouteDef[] = [
  ...accountRoutes,
  ...apiRoutes,
  ...endpointRoutes,
  ...consoleRoutes,
  ...topicRoutes,
  ...schemaRegistryRoutes,
  ...asyncApiRoutes,
  ...clientRoutes,
  ...planRoutes,
  ...appRoutes,
  ...tokenRoutes,
  ...accessRequestRoutes,
  ...signingKeyRoutes,
  ...auditRoutes,
  ...webhookRoutes,
  ...usageRoutes,
];
