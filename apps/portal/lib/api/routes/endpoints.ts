import type { RouteDef } from "../route";

export const endpointRoutes: RouteDef[] = [];
