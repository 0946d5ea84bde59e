import type { RouteDef } from "../route";

export const asyncApiRoutes: RouteDef[] = [];
