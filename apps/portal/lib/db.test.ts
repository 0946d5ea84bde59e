import assert from "node:assert/strict";
import { test } from "node:test";

test("an idle pooled connection that PostgreSQL closes is not an uncaught exception", async () => {
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
  } finally {
    console.warn = warn;
    await pool.end();
  }
  assert.match(warned.join("\n"), /a pooled connection failed \(terminating connection due to administrator command\)/);
});
