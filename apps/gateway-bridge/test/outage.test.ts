// A Kafka outage delays changes and never loses them; a crash (SIGKILL in the
// middle of a stream of changes) loses nothing either.
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import {
  createApi,
  createEndpoint,
  killAllBridges,
  pendingCount,
  scratchPerTest,
  startBridgeProcess,
  topicState,
  waitFor,
} from "./helpers.ts";

const { fixture } = scratchPerTest();
afterEach(async () => {
  await killAllBridges();
});

test("with Kafka unreachable rows stay pending (health and metrics say so); a bridge with Kafka then publishes them all", async () => {
  const { db, topic } = await fixture();
  // Port 1 on loopback: connection refused, i.e. Kafka is down.
  const down = await startBridgeProcess({ databaseUrl: db.url, topic, brokers: "127.0.0.1:1", sweepSeconds: 3600 });
  const api = await createApi(db.pool);
  const records = [];
  for (let i = 0; i < 5; i++) records.push(await createEndpoint(db.pool, api, "outage", `k${i}`));
  // It tries (and fails) to publish at least once after the rows exist.
  await down.waitForLog(/publisher session ended|publishing failed/);
  const health = await down.health();
  assert.equal(health.status, 503);
  assert.equal(health.body.kafka, "unreachable");
  assert.equal(health.body.database, "ok");
  assert.equal(health.body.pending, 5);
  assert.match(await down.metrics(), /^sluice_bridge_outbox_pending_rows 5$/m);
  assert.match(await down.metrics(), /^sluice_bridge_outbox_lag_seconds [0-9.e+-]+$/m);
  assert.equal(await pendingCount(db.pool), 5);
  assert.equal(await down.stop(), 0);
  assert.equal(await pendingCount(db.pool), 5, "nothing may be marked without Kafka's ack");

  const up = await startBridgeProcess({ databaseUrl: db.url, topic, sweepSeconds: 3600 });
  await waitFor("all rows published", async () => (await pendingCount(db.pool)) === 0);
  // Whether the start-up reconciliation or the drain sent them, the topic now
  // holds every change.
  const state = await topicState(topic);
  for (const r of records) assert.deepEqual(state.get(r.key), r.value, r.key);
  assert.equal(state.size, records.length);
  assert.equal(await up.stop(), 0);
});

test("SIGKILL in the middle of a stream of changes loses nothing", async () => {
  const { db, topic } = await fixture();
  const api = await createApi(db.pool);
  const first = await startBridgeProcess({ databaseUrl: db.url, topic, sweepSeconds: 3600 });
  await first.waitForLog(/publishing outbox changes/);

  const written = [];
  let killed = false;
  for (let i = 0; i < 60; i++) {
    written.push(await createEndpoint(db.pool, api, "crash", `k${i}`));
    if (!killed && i >= 20 && (await pendingCount(db.pool)) < written.length) {
      // The bridge is busy publishing: kill it now.
      await first.kill();
      killed = true;
    }
  }
  assert.ok(killed, "the bridge was killed while publishing");
  assert.ok((await pendingCount(db.pool)) > 0, "some changes are still pending after the kill");

  const second = await startBridgeProcess({ databaseUrl: db.url, topic, sweepSeconds: 3600 });
  await waitFor("every change published", async () => (await pendingCount(db.pool)) === 0);
  const state = await topicState(topic);
  for (const r of written) assert.deepEqual(state.get(r.key), r.value, r.key);
  assert.equal(state.size, written.length);
  assert.equal(await second.stop(), 0);
});
