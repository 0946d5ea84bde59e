// Two bridges on one database: only the lock holder publishes; the other takes
// over when it stops. Exactly one record per change proves nobody published twice.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createApi, createEndpoint, pendingCount, startBridgeProcess, topicRecords, scratchPerFile, waitFor } from "./helpers.ts";

const scratch = scratchPerFile();
const { topic } = scratch;

test("only the lock holder publishes; the standby takes over when it stops", async () => {
  const api = await createApi(scratch.db.pool);
  const a = await startBridgeProcess({ databaseUrl: scratch.db.url, topic });
  await a.waitForLog(/publishing outbox changes/);
  const b = await startBridgeProcess({ databaseUrl: scratch.db.url, topic });
  assert.equal((await b.health()).body.leader, "no");
  assert.equal((await a.health()).body.leader, "yes");

  const written = [];
  for (let i = 0; i < 20; i++) written.push(await createEndpoint(scratch.db.pool, api, "lead", `k${i}`));
  await waitFor("first changes published", async () => (await pendingCount(scratch.db.pool)) === 0);
  assert.doesNotMatch(b.output(), /holding the publisher lock/);
  assert.match(await b.metrics(), /^sluice_bridge_records_published_total 0$/m);

  assert.equal(await a.stop(), 0);
  await b.waitForLog(/publishing outbox changes/);
  assert.equal((await b.health()).body.leader, "yes");
  for (let i = 20; i < 30; i++) written.push(await createEndpoint(scratch.db.pool, api, "lead", `k${i}`));
  await waitFor("later changes published", async () => (await pendingCount(scratch.db.pool)) === 0);

  const records = await waitFor("30 records", async () => {
    const r = await topicRecords(topic);
    return r.length >= written.length ? r : undefined;
  });
  assert.deepEqual(
    records.map((r) => r.key),
    written.map((w) => w.key),
    "each change exactly once, in order",
  );
  assert.equal(await b.stop(), 0);
});
