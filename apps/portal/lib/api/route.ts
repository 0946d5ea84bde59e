// One definition per management-API operation. The same definition routes the
// request, checks the caller, validates input and describes the operation in the
// OpenAPI document, so the document cannot drift from what the API does.
import type { z } from "zod";

import type { Actor, Role } from "../auth/actor";
import type { Database } from "../db";

export type Method = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

export interface RouteContext<P, Q, B> {
  actor: Actor;
  db: Database;
  params: P;
  query: Q;
  body: B;
  request: Request;
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteDef<
  PS extends z.ZodType | undefined = z.ZodType | undefined,
  QS extends z.ZodType | undefined = z.ZodType | undefined,
  BS extends z.ZodType | undefined = z.ZodType | undefined,
> {
  method: Method;
  /** OpenAPI-style path under /api/v1, e.g. `/apis/{apiId}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** The least role that may call it, or "public" for unauthenticated routes. */
  auth: Role | "public";
  params?: PS;
  query?: QS;
  body?: BS;
  /** The success body's schema; null means 204 No Content. */
  response: z.ZodType | null;
  /** Success status, default 200. */
  status?: number;
  /**
   * The success body's media type in the OpenAPI document, default application/json.
   * A route with another type returns its own Response (the router only writes JSON).
   */
  responseContentType?: string;
  handler: (ctx: RouteContext<Out<PS>, Out<QS>, Out<BS>>) => Promise<unknown>;
}

/** Keeps each route's handler typed by its own schemas. */
export function defineRoute<
  PS extends z.ZodType | undefined = undefined,
  QS extends z.ZodType | undefined = undefined,
  BS extends z.ZodType | undefined = undefined,
>(def: RouteDef<PS, QS, BS>): RouteDef {
  return def as unknown as RouteDef;
}
