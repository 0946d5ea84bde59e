// Local mode's demo API (scripts/prepare.ts with SLUICE_DEMO_TOPIC): made once, on
// an empty catalog only, as a real endpoint on a real topic that reaches the
// catalog outbox like any editor's.
import assert from "node:assert/strict";
import { after, test } from "node:test";

import { catalogOutbox, endpoints, streamingApis } from "@sluice/db";

import { ensureDemoApi, DEMO_API_NAME } from "../lib/domain/demo/ensure-demo-api";
import { closeKafkaAdmins } from "../lib/kafka/admin";
import { closePortalRegistry } from "../lib/registry/registry";
import { createTopic } from "./catalog-helpers";
import { scratchDatabase } from "./helpers";

// createEndpoint checks the topic with the portal's shared Kafka client: let the process exit.
after(closeKafkaAdmins);
// The avro endpoint checks its subject with the portal's shared registry client.
after(() => closePortalRegistry());

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

test("with the Avro demo topic, the demo API also gets an avro endpoint on its registered subject", async (t) => {
  const registryUrl = process.env.SCHEMA_REGISTRY_URL?.replace(/\/+$/, "");
  if (!registryUrl) throw new Error("SCHEMA_REGISTRY_URL is not set: run integration tests through ./sluice test");
  const db = await scratchDatabase(t);
  const topic = await createTopic("demo", 3);
  const avroTopic = await createTopic("demo-orders-avro", 3);
  // What the launcher does before the prepare step (packages/stack/src/demo.ts registerDemoAvroSchema).
  const schema = { type: "record", name: "Order", namespace: "sluice.demo", fields: [{ name: "orderId", type: "string" }] };
  const subjects: [string, string][] = [
    [`${avroTopic}-value`, JSON.stringify(schema)],
    // The keys are Avro strings (c1, c2, c3).
    [`${avroTopic}-key`, '"string"'],
  ];
  for (const [subject, text] of subjects) {
    const res: Response = await fetch(`${registryUrl}/subjects/${encodeURIComponent(subject)}/versions`, {
      method: "POST",
      headers: { "content-type": "application/vnd.schemaregistry.v1+json" },
      body: JSON.stringify({ schema: text }),
    });
    assert.equal(res.status, 200, await res.text());
  }

  const made = await ensureDemoApi({ db, topic, avroTopic });
  assert.equal(made.kind === "created" && made.avroEndpointPath, `/${avroTopic}/{customer}`);
  const orders = (await db.select().from(endpoints)).find((e) => e.topic === avroTopic);
  assert.equal(orders?.payloadFormat, "avro");
  assert.equal(orders?.valueSubject, `${avroTopic}-value`);
  assert.equal(orders?.valueSubjectStrategy, "topic");
  assert.equal(orders?.valueSchemaVersion, null, "the latest version: a newer demo schema is used without a change here");
  assert.deepEqual([orders?.keySubject, orders?.keySubjectStrategy, orders?.keySchemaVersion], [`${avroTopic}-key`, "topic", null]);
});
