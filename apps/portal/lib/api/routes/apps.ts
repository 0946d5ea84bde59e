import type { RouteDef } from "../route";

export const appRoutes: RouteDef[] = [];
