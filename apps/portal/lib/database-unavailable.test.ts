import assert from "node:assert/strict";
import { createServer } from "node:net";
import { describe, test } from "node:test";

import pg from "pg";

import { problemFromError } from "./api/problem";
import { databaseUnavailable } from "./database-unavailable";
import { AppError } from "./errors";

/** A loopback port that was just free: connections to it are refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** What node-postgres raises when PostgreSQL shuts down under a session (fast shutdown, restart). */
function adminShutdown(): Error {
  return Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01", severity: "FATAL" });
}

/** Drizzle wraps driver errors: the PostgreSQL error is the cause. */
const wrapped = (cause: Error) => new Error('Failed query: insert into "endpoints" …', { cause });

describe("database unavailable", () => {
  test("a refused connection (PostgreSQL down) is a 503 that says nothing was changed", async () => {
    const client = new pg.Client({ host: "127.0.0.1", port: await closedPort(), user: "x", database: "x", connectionTimeoutMillis: 2000 });
    const err = await client.connect().then(
      () => assert.fail("connected to a closed port"),
      (e: unknown) => e,
    );
    const mapped = databaseUnavailable(wrapped(err as Error));
    assert.ok(mapped instanceof AppError);
    assert.equal(mapped.status, 503);
    assert.equal(mapped.code, "unavailable");
    assert.match(mapped.message, /database is unavailable/);
    assert.match(mapped.message, /Nothing was changed\./);
  });

  test("a session ended by a restart is a 503 that does not promise nothing was saved", () => {
    const mapped = databaseUnavailable(wrapped(adminShutdown()));
    assert.equal(mapped?.status, 503);
    assert.match(mapped!.message, /may or may not have been saved/);
    // What the log shows: the driver's words, not the failed query's text and parameters.
    assert.equal(mapped!.cause, "57P01: terminating connection due to administrator command");
    assert.doesNotMatch(mapped!.message, /Nothing was changed/);
  });

  test("node-postgres' own connection errors and 'starting up' count too", () => {
    assert.equal(databaseUnavailable(new Error("Connection terminated unexpectedly"))?.status, 503);
    assert.equal(databaseUnavailable(new Error("timeout exceeded when trying to connect"))?.status, 503);
    const startingUp = Object.assign(new Error("the database system is starting up"), { code: "57P03" });
    assert.match(databaseUnavailable(wrapped(startingUp))!.message, /Nothing was changed/);
  });

  test("other database errors are not an outage", () => {
    const unique = Object.assign(new Error("duplicate key value violates unique constraint"), { code: "23505" });
    assert.equal(databaseUnavailable(wrapped(unique)), undefined);
    assert.equal(databaseUnavailable(new Error("boom")), undefined);
    assert.equal(databaseUnavailable(undefined), undefined);
  });

  test("the API answers an outage with a 503 problem and Retry-After, not a bare 500", async () => {
    const res = problemFromError(wrapped(adminShutdown()));
    assert.equal(res.status, 503);
    assert.equal(res.headers.get("content-type"), "application/problem+json");
    assert.equal(res.headers.get("retry-after"), "2");
    const body = (await res.json()) as { type: string; status: number; detail: string };
    assert.equal(body.type, "urn:sluice:problem:unavailable");
    assert.match(body.detail, /try again in a few seconds/);
    // Anything else is still the internal error.
    assert.equal(problemFromError(new Error("boom")).status, 500);
  });
});
