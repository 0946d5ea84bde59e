import type { RouteDef } from "../route";

export const signingKeyRoutes: RouteDef[] = [];
