// One error type for everything the portal refuses. Route handlers turn it into
// RFC 9457 problem+json (lib/api/problem.ts), server actions into form state.

export interface FieldError {
  /** The input field, as a dotted path (`operations`, `jsonSchema.properties`). */
  field: string;
  message: string;
}

export type ErrorCode =
  | "validation_failed"
  | "unauthenticated"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "rate_limited"
  | "misconfigured"
  | "unavailable";

export class AppError extends Error {
  override readonly name = "AppError";
  constructor(
    readonly code: ErrorCode,
    readonly status: number,
    message: string,
    readonly fieldErrors: FieldError[] = [],
    /** Seconds until a rate-limited caller may retry. */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

export const invalid = (field: string, message: string) =>
  new AppError("validation_failed", 422, `${field}: ${message}`, [{ field, message }]);
export const notFound = (what: string) => new AppError("not_found", 404, `${what} was not found.`);
export const forbidden = (message = "Your role does not allow this.") => new AppError("forbidden", 403, message);
export const unauthenticated = (message = "Sign in, or send a personal API key as Authorization: Bearer slk_…") =>
  new AppError("unauthenticated", 401, message);
export const conflict = (field: string, message: string) => new AppError("conflict", 409, `${field}: ${message}`, [{ field, message }]);

/** PostgreSQL's error fields that matter here (node-postgres DatabaseError). */
interface PgError {
  code?: string;
  constraint?: string;
}

/**
 * Turns a unique or check violation into an AppError naming the field, using the
 * constraint names of packages/db. Anything not listed is rethrown unchanged.
 */
export function translateConstraint(err: unknown, fields: Record<string, FieldError>): never {
  const pg = (err as { cause?: PgError } & PgError) ?? {};
  // Drizzle wraps driver errors; the PostgreSQL fields sit on the cause.
  const source = pg.code ? pg : (pg.cause ?? {});
  const mapped = source.constraint ? fields[source.constraint] : undefined;
  if (mapped) {
    const status = source.code === "23505" ? 409 : 422;
    throw new AppError(status === 409 ? "conflict" : "validation_failed", status, `${mapped.field}: ${mapped.message}`, [mapped]);
  }
  throw err;
}
