// One definition per management-API operation. The same definition routes the
// request, checks the caller, validates input and describes the operation in the
// OpenAPI document, so the document cannot drift from what the API does. The
// router does the role check and the parsing, once; the handler gets the typed
// input and an AuthorizedActor of the route's role and passes both to the domain.
import type { z } from "zod";

import type { AuthorizedActor, Role } from "../auth/actor";
import type { Database } from "../db";

export type Method = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

/** The caller as the router checked it: at least the route's role, or nobody for a public route. */
export type RouteActor<A extends Role | "public"> = A extends Role ? AuthorizedActor<A> : undefined;

export interface RouteContext<A extends Role | "public", P, Q, B> {
  actor: RouteActor<A>;
  db: Database;
  params: P;
  query: Q;
  body: B;
  request: Request;
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteDef<
  A extends Role | "public" = Role | "public",
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
  auth: A;
  params?: PS;
  query?: QS;
  body?: BS;
  /** The success body's schema; null means 204 No Content. */
  response: z.ZodType | null;
  /** Success status, default 200. */
  status?: number;
  /** Other success statuses answered with the same body (a dry run's 200); the handler returns its own Response for them. */
  otherStatuses?: number[];
  /**
   * The success body's media type in the OpenAPI document, default application/json.
   * A route with another type returns its own Response (the router only writes JSON).
   */
  responseContentType?: string;
  /**
   * Other media types the same operation can answer with, as text (e.g. text/csv
   * for an export); the handler chooses and returns its own Response for them.
   */
  alternateContentTypes?: string[];
  handler: (ctx: RouteContext<A, Out<PS>, Out<QS>, Out<BS>>) => Promise<unknown>;
}

/** Keeps each route's handler typed by its own role and schemas. */
export function defineRoute<
  A extends Role | "public",
  PS extends z.ZodType | undefined = undefined,
  QS extends z.ZodType | undefined = undefined,
  BS extends z.ZodType | undefined = undefined,
>(def: RouteDef<A, PS, QS, BS>): RouteDef {
  return def as unknown as RouteDef;
}
