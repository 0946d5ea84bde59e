// Serves /api/v1/* from the route definitions in lib/api/routes. Authentication:
// a personal API key (`Authorization: Bearer slk_…`) or the browser session
// cookie; cookie-authenticated writes must echo the session's CSRF token in
// X-CSRF-Token. A bad credential is refused outright, never downgraded.
import { actorFromUser, authorize, type Actor, type AuthorizedActor, type Role } from "../auth/actor";
import { authenticateApiKey } from "../auth/authenticate-api-key";
import { constantTimeEqual } from "../auth/secrets";
import { lookupSession, SESSION_COOKIE } from "../auth/sessions";
import { getDb } from "../db";
import { AppError, forbidden, unauthenticated } from "../errors";
import { parseInput } from "../validation/parse";
import { problemFromError, problemResponse } from "./problem";
import type { Method, RouteDef } from "./route";
import { allRoutes } from "./routes";

interface CompiledRoute {
  def: RouteDef;
  pattern: RegExp;
  names: string[];
}

const compiled: CompiledRoute[] = allRoutes.map((def) => {
  const names: string[] = [];
  const source = def.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{(\w+)\}/g, (_m, name: string) => {
    names.push(name);
    return "([^/]+)";
  });
  return { def, pattern: new RegExp(`^${source}$`), names };
});

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export async function dispatch(request: Request, method: Method): Promise<Response> {
  const url = new URL(request.url);
  const subpath = url.pathname.replace(/^\/api\/v1/, "") || "/";
  const candidates = compiled
    .map((route) => ({ route, match: route.pattern.exec(subpath) }))
    .filter((c): c is { route: CompiledRoute; match: RegExpExecArray } => c.match !== null);
  if (candidates.length === 0)
    return problemResponse("not_found", 404, `There is no API operation at ${url.pathname}. See /api/v1/openapi.json.`);
  const hit = candidates.find((c) => c.route.def.method === method);
  if (!hit) {
    const allowed = [...new Set(candidates.map((c) => c.route.def.method))].join(", ");
    return problemResponse("method_not_allowed", 405, `${method} is not supported here; use ${allowed}.`, undefined, { allow: allowed });
  }
  const { def, names } = hit.route;

  try {
    const db = getDb();
    let actor: AuthorizedActor<Role> | undefined;
    if (def.auth !== "public") {
      const caller = await authenticate(request, method);
      if (!caller) throw unauthenticated();
      // The one role check of an API call: the handler's domain function takes the authorized actor as it is.
      actor = authorize(caller, def.auth);
    }
    const rawParams = Object.fromEntries(names.map((n, i) => [n, safeDecode(hit.match[i + 1]!)]));
    const params = def.params ? parseInput(def.params, rawParams) : rawParams;
    const query = def.query ? parseInput(def.query, Object.fromEntries(url.searchParams)) : undefined;
    const body = def.body ? parseInput(def.body, await readJson(request)) : undefined;
    const result = await def.handler({ actor, db, params, query, body, request });
    if (result instanceof Response) return result;
    if (def.response === null) return new Response(null, { status: 204, headers: { "cache-control": "no-store" } });
    return new Response(JSON.stringify(result), {
      status: def.status ?? 200,
      headers: { "content-type": "application/json", "cache-control": "no-store" },
    });
  } catch (err) {
    return problemFromError(err);
  }
}

async function authenticate(request: Request, method: string): Promise<Actor | undefined> {
  const db = getDb();
  const authorization = request.headers.get("authorization");
  if (authorization) {
    const [scheme, key] = authorization.split(/\s+/, 2);
    if (scheme?.toLowerCase() !== "bearer" || !key) throw unauthenticated("Send the key as Authorization: Bearer slk_…");
    const actor = await authenticateApiKey({ db, key });
    if (!actor) throw unauthenticated("This API key is unknown, revoked or expired.");
    return actor;
  }
  const token = readCookie(request.headers.get("cookie") ?? "", SESSION_COOKIE);
  if (!token) return undefined;
  const session = await lookupSession({ db, token });
  if (!session) throw unauthenticated("Your session has ended. Sign in again.");
  if (!SAFE_METHODS.has(method)) {
    const sent = request.headers.get("x-csrf-token") ?? "";
    if (!constantTimeEqual(sent, session.csrfToken))
      throw forbidden("Send the session's CSRF token in X-CSRF-Token (or use a personal API key).");
  }
  return actorFromUser(session.user, { kind: "session" });
}

async function readJson(request: Request): Promise<unknown> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(type)) {
    throw new AppError("validation_failed", 415, "Send the body as JSON with Content-Type: application/json.");
  }
  const text = await request.text();
  if (text.length > 1_000_000) throw new AppError("validation_failed", 413, "The body is larger than 1 MB.");
  try {
    return text === "" ? {} : JSON.parse(text);
  } catch (err) {
    throw new AppError("validation_failed", 400, `The body is not valid JSON: ${(err as Error).message}`);
  }
}

function readCookie(header: string, name: string): string | undefined {
  for (const part of header.split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return decodeURIComponent(v.join("="));
  }
  return undefined;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
