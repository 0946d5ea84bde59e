import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { test } from "node:test";

test("a pooled connection that PostgreSQL closes is not an uncaught exception, idle or in use", async () => {
  // No connection is made: only the pool object is built.
  process.env.DATABASE_URL ??= "postgres://nobody@127.0.0.1:1/none";
  const { getDb } = await import("./db");
  const pool = getDb().$client;
  const warn = console.warn;
  const warned: string[] = [];
  console.warn = (line: string) => void warned.push(line);
  try {
    // What pg.Pool emits when an idle client's connection ends (a PostgreSQL
    // restart): with no listener, EventEmitter throws it.
    assert.doesNotThrow(() => pool.emit("error", new Error("terminating connection due to administrator command")));
    // A checked-out client between two queries of a transaction: the pool's
    // listener is off it, so the client's own "error" event needs one. Every
    // client the pool connects gets it ("connect" is emitted per new client).
    const client = new EventEmitter();
    pool.emit("connect", client);
    assert.doesNotThrow(() => client.emit("error", new Error("Connection terminated unexpectedly")));
  } finally {
    console.warn = warn;
    await pool.end();
  }
  assert.match(warned.join("\n"), /an idle pooled connection failed \(terminating connection due to administrator command\)/);
  assert.match(warned.join("\n"), /a connection in use failed \(Connection terminated unexpectedly\)/);
});
