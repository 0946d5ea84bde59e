import type { RouteDef } from "../route";

export const tokenRoutes: RouteDef[] = [];
