// A PostgreSQL that is restarting, down or out of connections is an outage of
// a dependency, not a bug: callers get a 503 "unavailable" problem (with
// Retry-After) saying so, instead of a bare 500 "internal". node-postgres
// reports it as a socket error (ECONNREFUSED, ECONNRESET…), as a server error
// of class 08 (connection exception) or 57P0x (shutdown, starting up), or as
// its own "Connection terminated" errors; Drizzle wraps them in `cause`.
import { AppError } from "./errors";

/** Codes meaning the request never reached a working session: nothing ran. */
const NEVER_CONNECTED = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "57P03",
  "53300",
  "08001",
  "08004",
]);
/** Codes meaning a session broke while it was in use: a statement may have run. */
const CUT_OFF = new Set(["ECONNRESET", "EPIPE", "ETIMEDOUT", "57P01", "57P02", "08000", "08003", "08006"]);

const NEVER_CONNECTED_MESSAGE = /timeout exceeded when trying to connect|Connection terminated due to connection timeout/i;
const CUT_OFF_MESSAGE = /Connection terminated|connection error and is not queryable/i;

/** Seconds a client should wait before retrying: a restart takes a few. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/** The errors err is made of: itself, its causes, an AggregateError's members. */
function* chain(err: unknown, depth = 0): Generator<{ code?: unknown; message?: unknown }> {
  if (!err || typeof err !== "object" || depth > 8) return;
  yield err as { code?: unknown; message?: unknown };
  if (err instanceof AggregateError) for (const e of err.errors) yield* chain(e, depth + 1);
  yield* chain((err as { cause?: unknown }).cause, depth + 1);
}

/**
 * databaseUnavailable is the 503 AppError for an error that means PostgreSQL
 * could not be used (down, restarting, refusing connections), or undefined
 * for any other error. Its message says whether a change can have been saved.
 */
export function databaseUnavailable(err: unknown): AppError | undefined {
  let kind: "never-connected" | "cut-off" | undefined;
  let reason = "";
  for (const e of chain(err)) {
    const code = typeof e.code === "string" ? e.code : "";
    const message = typeof e.message === "string" ? e.message : "";
    if (NEVER_CONNECTED.has(code) || NEVER_CONNECTED_MESSAGE.test(message)) kind ??= "never-connected";
    else if (CUT_OFF.has(code) || CUT_OFF_MESSAGE.test(message)) kind = "cut-off";
    else continue;
    reason ||= code ? `${code}: ${message}` : message;
  }
  if (!kind) return undefined;
  const outcome =
    kind === "never-connected"
      ? "Nothing was changed."
      : "If this request was saving a change, it may or may not have been saved: check before repeating it.";
  const unavailable = new AppError(
    "unavailable",
    503,
    `The database is unavailable (restarting or unreachable); try again in a few seconds. ${outcome}`,
    [],
    DATABASE_RETRY_AFTER_SECONDS,
  );
  // For the log: the driver's own words, not the failed query and its parameters.
  unavailable.cause = reason;
  return unavailable;
}
