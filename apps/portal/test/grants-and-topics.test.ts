// Grants from the catalog (issue 20 item 2) and topics created from the portal
// (item 3), against the stack's PostgreSQL and Kafka: parameterised paths as the
// catalog shows them, the warnings before a grant is saved (API: warnings in the
// answer and ?dryRun=true), "Grant to an app…" through grantEndpoints, the role
// matrix, and topic creation on and off, audited, refused by the cluster's ACLs.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { securedKafkaFromEnv, scramSettings } from "@sluice/kafka-settings/test-support/secured-kafka";
import { appGrants } from "@sluice/db";
import { eq } from "drizzle-orm";

import { authorize } from "../lib/auth/actor";
import { grantEndpoints } from "../lib/domain/grants/grant-endpoints";
import { createTopic } from "../lib/domain/topics/create-topic";
import { AppError } from "../lib/errors";
import { closeKafkaAdmins, findKafkaTopic, listKafkaTopics } from "../lib/kafka/admin";
import { parseInput } from "../lib/validation/parse";
import { createTopicInput } from "../lib/validation/topics";
import { auditRows, createTopic as createTestTopic, fieldsOf, outboxRows, uniqueName } from "./catalog-helpers";
import { db, seedUser, type SeededUser } from "./helpers";

let editor: SeededUser;
let viewer: SeededUser;
let topic: string;
let apiId: string;
let otherApiId: string;
const endpointIds: Record<string, string> = {};
const saved = { ...process.env };
/** Topics this suite created through the portal, deleted after the run. */
const madeHere: string[] = [];

before(async () => {
  [editor, viewer, topic] = await Promise.all([seedUser("editor"), seedUser("viewer"), createTestTopic("grants")]);
  apiId = (await editor.api.POST("/apis", { body: { name: uniqueName("Grants API"), version: "1.0.0" } })).data!.id;
  otherApiId = (await editor.api.POST("/apis", { body: { name: uniqueName("Other grants API"), version: "1.0.0" } })).data!.id;
  const define = async (id: string, body: Record<string, unknown>) => {
    const { data, error } = await editor.api.POST("/apis/{apiId}/endpoints", { params: { path: { apiId: id } }, body: body as never });
    assert.ok(data, JSON.stringify(error));
    return data.id;
  };
  endpointIds.param = await define(apiId, { path: `/${topic}/{symbol}`, operations: ["subscribe"] });
  endpointIds.exact = await define(apiId, { topic, key: "eu/orders", operations: ["subscribe", "publish"] });
  endpointIds.other = await define(otherApiId, { topic, key: "elsewhere", operations: ["subscribe"] });
});

after(async () => {
  process.env = saved;
  await closeKafkaAdmins();
  if (madeHere.length) {
    const { Kafka, logLevel } = await import("kafkajs");
    const admin = new Kafka({ brokers: (process.env.KAFKA_BROKERS ?? "").split(","), logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    await admin.deleteTopics({ topics: madeHere }).catch(() => {});
    await admin.disconnect();
  }
});

async function newApp(owner: SeededUser = editor) {
  return (await owner.api.POST("/apps", { body: { name: uniqueName("Grants app") } })).data!;
}

describe("grants with warnings", () => {
  test("a parameterised path as the catalog shows it is the topic's wildcard; on a defined endpoint of an existing topic, no warnings", async () => {
    const app = await newApp();
    const { data, error, response } = await editor.api.POST("/apps/{appId}/grants", {
      params: { path: { appId: app.id } },
      body: { endpointPattern: `/${topic}/{symbol}`, operations: ["subscribe"] },
    });
    assert.equal(response.status, 201, JSON.stringify(error));
    assert.equal(data!.endpointPattern, `/${topic}/*`);
    assert.deepEqual(data!.warnings, []);
    assert.equal((await auditRows(data!.id, "grant.create")).length, 1);
  });

  test("a pattern matching no endpoint on a missing topic is saved with both warnings; ?dryRun=true answers the same and saves nothing", async () => {
    const app = await newApp();
    const path = { appId: app.id };
    const missing = `/no-such-topic-${randomBytes(4).toString("hex")}/x`;
    const dry = await editor.api.POST("/apps/{appId}/grants", {
      params: { path, query: { dryRun: "true" } },
      body: { endpointPattern: missing, operations: ["subscribe"] },
    });
    assert.equal(dry.response.status, 200, JSON.stringify(dry.error));
    assert.deepEqual(
      dry.data!.warnings.map((w) => w.code),
      ["no_endpoint", "no_topic"],
    );
    assert.match(dry.data!.warnings[0]!.message, /matches no endpoint of the catalog/);
    assert.deepEqual(await db.select().from(appGrants).where(eq(appGrants.appId, app.id)), [], "the dry run saved a grant");
    assert.deepEqual(await auditRows(dry.data!.id, "grant.create"), [], "the dry run left an audit entry");

    // An exact key that no endpoint has, on a topic with a parameterised endpoint, is served by it: no warning.
    const served = await editor.api.POST("/apps/{appId}/grants", {
      params: { path, query: { dryRun: "true" } },
      body: { endpointPattern: `/${topic}/AAPL`, operations: ["subscribe"] },
    });
    assert.deepEqual(served.data!.warnings, []);

    const saved = await editor.api.POST("/apps/{appId}/grants", {
      params: { path },
      body: { endpointPattern: missing, operations: ["subscribe"] },
    });
    assert.equal(saved.response.status, 201);
    assert.deepEqual(
      saved.data!.warnings.map((w) => w.code),
      ["no_endpoint", "no_topic"],
    );
    // A dry run runs every check: the duplicate is refused as saving would be.
    const dup = await editor.api.POST("/apps/{appId}/grants", {
      params: { path, query: { dryRun: "true" } },
      body: { endpointPattern: missing, operations: ["subscribe"] },
    });
    assert.equal(dup.response.status, 409);
    assert.deepEqual(fieldsOf(dup.error as never), ["endpointPattern"]);
    const bad = await editor.api.POST("/apps/{appId}/grants", {
      params: { path, query: { dryRun: "maybe" as never } },
      body: { endpointPattern: missing, operations: ["subscribe"] },
    });
    assert.equal(bad.response.status, 422);
    assert.deepEqual(fieldsOf(bad.error as never), ["dryRun"]);
  });

  test("viewers cannot grant, not even to their own app or as a dry run", async () => {
    const app = await newApp(viewer);
    for (const query of [{}, { dryRun: "true" as const }]) {
      const res = await viewer.api.POST("/apps/{appId}/grants", {
        params: { path: { appId: app.id }, query },
        body: { endpointPattern: `/${topic}/{symbol}`, operations: ["subscribe"] },
      });
      assert.equal(res.response.status, 403);
    }
  });
});

describe("Grant to an app… (grantEndpoints)", () => {
  test("grants each chosen endpoint by the pattern it is served by, with the chosen operations it allows, in one audited transaction", async () => {
    const app = await newApp(viewer);
    const grants = await grantEndpoints({
      db,
      actor: authorize(editor.actor, "editor"),
      appId: app.id,
      apiId,
      endpointIds: [endpointIds.param!, endpointIds.exact!],
      operations: ["subscribe", "publish"],
      planId: null,
    });
    assert.deepEqual(
      grants.map((g) => [g.endpointPattern, g.operations, g.warnings]),
      [
        [`/${topic}/*`, ["subscribe"], []],
        [`/${topic}/eu/orders`, ["subscribe", "publish"], []],
      ],
    );
    for (const g of grants) assert.equal((await auditRows(g.id, "grant.create")).length, 1);

    // All or none: one grant already there refuses the whole call.
    await assert.rejects(
      grantEndpoints({
        db,
        actor: authorize(editor.actor, "editor"),
        appId: app.id,
        apiId,
        endpointIds: [endpointIds.param!],
        operations: ["subscribe"],
        planId: null,
      }),
      (err: unknown) => err instanceof AppError && err.status === 409,
    );
  });

  test("under a plan: every grant carries it, and the app's record goes out once, with all the patterns under the plan's limits", async () => {
    const app = await newApp();
    const plan = await editor.api.POST("/apis/{apiId}/plans", {
      params: { path: { apiId } },
      body: { name: uniqueName("Gold"), limits: { connections: 3 } },
    });
    assert.ok(plan.data, JSON.stringify(plan.error));
    // A topic of this API only: the first topic's wildcard also reaches the other API's endpoint, which no plan may span.
    const own = await createTestTopic("grants-plan");
    const ownEndpoint = await editor.api.POST("/apis/{apiId}/endpoints", {
      params: { path: { apiId } },
      body: { path: `/${own}/{id}`, operations: ["subscribe"] } as never,
    });
    assert.ok(ownEndpoint.data, JSON.stringify(ownEndpoint.error));
    const before = (await outboxRows(`app/${app.id}`)).length;
    const grants = await grantEndpoints({
      db,
      actor: authorize(editor.actor, "editor"),
      appId: app.id,
      apiId,
      endpointIds: [ownEndpoint.data.id, endpointIds.exact!],
      operations: ["subscribe"],
      planId: plan.data.id,
    });
    assert.deepEqual(
      grants.map((g) => g.planId),
      [plan.data.id, plan.data.id],
    );
    const rows = await outboxRows(`app/${app.id}`);
    assert.equal(rows.length, before + 1, "one app record for the whole call");
    const record = rows.at(-1)!.recordValue as { limits?: { plan: string; patterns: string[]; connections: number | null }[] };
    assert.deepEqual(record.limits, [
      { ...record.limits![0]!, plan: plan.data.id, patterns: [`/${own}/*`, `/${topic}/eu/orders`].sort(), connections: 3 },
    ]);
  });

  test("an endpoint of another API, or operations none of the endpoints allow, name their field", async () => {
    const app = await newApp();
    const actor = authorize(editor.actor, "editor");
    const refusal = async (input: { endpointIds: string[]; operations: ("subscribe" | "publish")[] }) => {
      try {
        await grantEndpoints({ db, actor, appId: app.id, apiId, planId: null, ...input });
      } catch (err) {
        assert.ok(err instanceof AppError);
        return [err.status, err.fieldErrors.map((e) => e.field)];
      }
      assert.fail("granted");
    };
    assert.deepEqual(await refusal({ endpointIds: [endpointIds.other!], operations: ["subscribe"] }), [422, ["endpointIds"]]);
    assert.deepEqual(await refusal({ endpointIds: [endpointIds.param!], operations: ["publish"] }), [422, ["operations"]]);
    assert.deepEqual(await refusal({ endpointIds: [], operations: ["subscribe"] }), [422, ["endpointIds"]]);
  });
});

describe("topics", () => {
  const editorActor = () => authorize(editor.actor, "editor");
  const input = (raw: Record<string, unknown>) => parseInput(createTopicInput, raw);
  const status = async (run: () => Promise<unknown>) => {
    try {
      await run();
    } catch (err) {
      assert.ok(err instanceof AppError, String(err));
      return { status: err.status, fields: err.fieldErrors.map((e) => e.field), message: err.message };
    }
    return { status: 201, fields: [], message: "" };
  };

  test("with the stack's own Kafka an editor creates a topic, audited; it is listed at once; a second time is 409 naming name", async () => {
    process.env.SLUICE_KAFKA_MODE = "local";
    delete process.env.SLUICE_TOPIC_CREATION;
    const name = uniqueName("portal-made");
    madeHere.push(name);
    const topicMade = await createTopic({ db, actor: editorActor(), input: input({ name, partitions: 3 }) });
    assert.deepEqual(topicMade, { name, partitions: 3 });
    assert.ok(
      (await listKafkaTopics()).some((t) => t.name === name && t.partitions === 3),
      "not listed",
    );
    const audit = await auditRows(name, "topic.create");
    assert.equal(audit.length, 1);
    assert.equal(audit[0]!.entityType, "kafka_topic");
    assert.equal(audit[0]!.actorUserId, editor.user.id);
    assert.deepEqual(audit[0]!.after, { name, partitions: 3 });

    const again = await status(() => createTopic({ db, actor: editorActor(), input: input({ name, partitions: 1 }) }));
    assert.deepEqual([again.status, again.fields], [409, ["name"]]);
  });

  test("names and partition counts are checked like Kafka does, naming the field", async () => {
    for (const [raw, field] of [
      [{ name: "", partitions: 1 }, "name"],
      [{ name: "has space", partitions: 1 }, "name"],
      [{ name: "..", partitions: 1 }, "name"],
      [{ name: "x".repeat(250), partitions: 1 }, "name"],
      [{ name: "__internal", partitions: 1 }, "name"],
      [{ name: "fine", partitions: 0 }, "partitions"],
      [{ name: "fine", partitions: 101 }, "partitions"],
      [{ name: "fine", partitions: 1.5 }, "partitions"],
    ] as const) {
      const res = await editor.api.POST("/topics", { body: raw as never });
      assert.equal(res.response.status, 422, JSON.stringify(raw));
      assert.deepEqual(fieldsOf(res.error as never), [field], JSON.stringify(raw));
    }
  });

  test("names that differ only in . and _ collide, as Kafka says", async () => {
    process.env.SLUICE_KAFKA_MODE = "local";
    const base = `portal.dot-${randomBytes(3).toString("hex")}`;
    madeHere.push(base);
    await createTopic({ db, actor: editorActor(), input: input({ name: base }) });
    const clash = await status(() => createTopic({ db, actor: editorActor(), input: input({ name: base.replace(".", "_") }) }));
    assert.deepEqual([clash.status, clash.fields], [422, ["name"]]);
  });

  test("off with an external Kafka unless SLUICE_TOPIC_CREATION=on; =off turns it off in local mode too; viewers never", async () => {
    const name = uniqueName("portal-off");
    for (const env of [{ SLUICE_KAFKA_MODE: "external" }, {}, { SLUICE_KAFKA_MODE: "local", SLUICE_TOPIC_CREATION: "off" }]) {
      delete process.env.SLUICE_KAFKA_MODE;
      delete process.env.SLUICE_TOPIC_CREATION;
      Object.assign(process.env, env);
      const off = await status(() => createTopic({ db, actor: editorActor(), input: input({ name }) }));
      assert.equal(off.status, 403, JSON.stringify(env));
      assert.match(off.message, /SLUICE_TOPIC_CREATION=on/);
    }
    assert.equal((await findKafkaTopic(name)).kind, "missing");
    process.env.SLUICE_KAFKA_MODE = "external";
    process.env.SLUICE_TOPIC_CREATION = "on";
    madeHere.push(name);
    assert.equal((await status(() => createTopic({ db, actor: editorActor(), input: input({ name }) }))).status, 201);
    process.env.SLUICE_TOPIC_CREATION = "yes";
    assert.equal((await status(() => createTopic({ db, actor: editorActor(), input: input({ name: `${name}-2` }) }))).status, 500);
    assert.equal((await viewer.api.POST("/topics", { body: { name: uniqueName("viewer"), partitions: 1 } })).response.status, 403);
  });

  test("through the API of the stack's portal (local mode): 201, then listed with topicCreation true", async () => {
    const name = uniqueName("portal-api");
    madeHere.push(name);
    const res = await editor.api.POST("/topics", { body: { name, partitions: 2 } });
    assert.equal(res.response.status, 201, JSON.stringify(res.error));
    assert.deepEqual(res.data, { name, partitions: 2 });
    const list = await editor.api.GET("/topics");
    assert.equal(list.data!.topicCreation, true);
    assert.ok(list.data!.items.some((t) => t.name === name));
  });

  test("on the secured listener as the portal's SCRAM user, whom the ACLs deny CREATE: 403 naming the principal and the ACL, nothing created", async () => {
    const secured = securedKafkaFromEnv();
    const prefix = `portal-nocreate-${randomBytes(3).toString("hex")}-`;
    const name = `${prefix}x`;
    // The stack lets every Sluice principal do anything; deny the portal's user CREATE for this test (a deny wins).
    // kafkajs is CommonJS: its ACL enums are on the default export only.
    const { AclOperationTypes, AclPermissionTypes, AclResourceTypes, Kafka, logLevel, ResourcePatternTypes } = (await import("kafkajs"))
      .default;
    const superuser = new Kafka({ brokers: (saved.KAFKA_BROKERS ?? "").split(","), logLevel: logLevel.NOTHING }).admin();
    const deny = [
      { resourceType: AclResourceTypes.CLUSTER, resourceName: "kafka-cluster", resourcePatternType: ResourcePatternTypes.LITERAL },
      { resourceType: AclResourceTypes.TOPIC, resourceName: prefix, resourcePatternType: ResourcePatternTypes.PREFIXED },
    ].map((resource) => ({
      ...resource,
      principal: "User:sluice-portal",
      host: "*",
      operation: AclOperationTypes.CREATE,
      permissionType: AclPermissionTypes.DENY,
    }));
    await superuser.connect();
    await superuser.createAcls({ acl: deny });
    process.env.SLUICE_KAFKA_MODE = "external";
    process.env.SLUICE_TOPIC_CREATION = "on";
    for (const key of Object.keys(process.env)) if (key.startsWith("KAFKA_SASL_") || key.startsWith("KAFKA_TLS_")) delete process.env[key];
    Object.assign(process.env, scramSettings(secured, "sluice-portal"));
    try {
      // ACLs reach the brokers through the metadata log: give them a moment.
      await new Promise((r) => setTimeout(r, 1_500));
      const refused = await status(() =>
        createTopic({ db, actor: editorActor(), input: input({ name }), brokers: secured.saslSslBrokers }),
      );
      assert.equal(refused.status, 403, refused.message);
      assert.ok(refused.message.includes("User:sluice-portal (KAFKA_SASL_USERNAME)"), refused.message);
      assert.ok(refused.message.includes(`CREATE on the topic ${name} (or on the cluster)`), refused.message);
      assert.ok(!refused.message.includes(secured.users["sluice-portal"]!), "no password in the message");
      assert.deepEqual(await auditRows(name, "topic.create"), []);
      assert.ok(!(await superuser.listTopics()).includes(name), "the topic was created");
    } finally {
      for (const key of Object.keys(process.env))
        if (key.startsWith("KAFKA_SASL_") || key.startsWith("KAFKA_TLS_")) delete process.env[key];
      delete process.env.KAFKA_SECURITY_PROTOCOL;
      if (saved.KAFKA_SECURITY_PROTOCOL !== undefined) process.env.KAFKA_SECURITY_PROTOCOL = saved.KAFKA_SECURITY_PROTOCOL;
      await closeKafkaAdmins();
      await superuser.deleteAcls({ filters: deny });
      await superuser.disconnect();
    }
  });
});
