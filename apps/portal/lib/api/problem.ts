// RFC 9457 problem details for every /api/v1 error. `errors` lists each bad field.
import { databaseUnavailable } from "../database-unavailable";
import { AppError, type FieldError } from "../errors";

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: FieldError[];
}

const TITLES: Record<string, string> = {
  validation_failed: "The request is not valid",
  unauthenticated: "Authentication required",
  forbidden: "Not allowed",
  not_found: "Not found",
  conflict: "Conflict",
  rate_limited: "Too many requests",
  misconfigured: "The portal is misconfigured",
  unavailable: "A dependency is unavailable",
  bad_request: "Bad request",
  unsupported_media_type: "Unsupported media type",
  method_not_allowed: "Method not allowed",
  internal: "Internal error",
};

export function problemResponse(code: string, status: number, detail: string, errors?: FieldError[], headers?: HeadersInit): Response {
  const body: Problem = { type: `urn:sluice:problem:${code}`, title: TITLES[code] ?? code, status, detail };
  if (errors?.length) body.errors = errors;
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/problem+json", "cache-control": "no-store", ...headers },
  });
}

export function problemFromError(thrown: unknown): Response {
  // A database outage is a 503 the caller can retry, not an internal error.
  const outage = databaseUnavailable(thrown);
  if (outage) console.warn(`api: the database is unavailable (${String(outage.cause)}); answered 503`);
  const err = outage ?? thrown;
  if (err instanceof AppError) {
    const headers: Record<string, string> = err.retryAfter ? { "retry-after": String(err.retryAfter) } : {};
    if (err.status === 401) headers["www-authenticate"] = 'Bearer realm="sluice"';
    return problemResponse(err.code, err.status, err.message, err.fieldErrors, headers);
  }
  console.error("api: unexpected error", err);
  return problemResponse("internal", 500, "Something went wrong on our side; nothing was changed.");
}
