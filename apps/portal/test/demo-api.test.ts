// Local mode's demo API (scripts/prepare.ts with SLUICE_DEMO_TOPIC): made once, on
// an empty catalog only, as a real endpoint on a real topic that reaches the
// catalog outbox like any editor's.
import assert from "node:assert/strict";
import { after, test } from "node:test";

import { catalogOutbox, endpoints, streamingApis } from "@sluice/db";

import { ensureDemoApi, DEMO_API_NAME } from "../lib/domain/demo/ensure-demo-api";
import { closeKafkaAdmins } from "../lib/kafka/admin";
import { createTopic } from "./catalog-helpers";
import { scratchDatabase } from "./helpers";

// createEndpoint checks the topic with the portal's shared Kafka client: let the process exit.
after(closeKafkaAdmins);

test("an empty catalog gets the demo API once; a catalog with any API gets nothing", async (t) => {
  const db = await scratchDatabase(t);
  const topic = await createTopic("demo", 3);

  const first = await ensureDemoApi({ db, topic });
  assert.equal(first.kind, "created");
  assert.equal(first.kind === "created" && first.endpointPath, `/${topic}/{vehicle}`);
  const apis = await db.select().from(streamingApis);
  assert.deepEqual(
    apis.map((a) => a.name),
    [DEMO_API_NAME],
  );
  const [endpoint] = await db.select().from(endpoints);
  assert.deepEqual(endpoint!.operations, ["subscribe"]);
  assert.equal(endpoint!.keyParam, "vehicle");
  const outbox = await db.select().from(catalogOutbox);
  assert.ok(
    outbox.some((r) => r.recordKey === `endpoint/${endpoint!.id}` && r.recordValue !== null),
    "the endpoint reaches the catalog outbox",
  );

  // Started again, or after the user deleted the demo and made their own APIs: nothing new.
  assert.deepEqual(await ensureDemoApi({ db, topic }), { kind: "skipped" });
  assert.equal((await db.select().from(streamingApis)).length, 1);
});
