import type { RouteDef } from "../route";

export const topicRoutes: RouteDef[] = [];
