import type { RouteDef } from "../route";

export const auditRoutes: RouteDef[] = [];
