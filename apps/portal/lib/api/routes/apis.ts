import type { RouteDef } from "../route";

export const apiRoutes: RouteDef[] = [];
