// The usage routes against the running portal, with usage produced the way the
// gateways produce it: records per the usage contract on the usage topic, which
// the stack's bridge aggregates into PostgreSQL. Exact totals per app, API and
// endpoint; CSV both ways; and the role matrix of every usage route.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { Kafka, logLevel, Partitioners } from "kafkajs";

import { createTopic } from "./catalog-helpers";
import { portalUrl, rawApi, seedUser, sessionFor, type SeededUser } from "./helpers";

const usageTopic = process.env.SLUICE_USAGE_TOPIC || "__sluice_usage";
const kafka = new Kafka({
  clientId: "sluice-portal-usage-tests",
  brokers: (process.env.KAFKA_BROKERS || "127.0.0.1:9092").split(","),
  logLevel: logLevel.NOTHING,
});
const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });

let admin: SeededUser;
let editor: SeededUser;
let apiOwner: SeededUser;
let appOwner: SeededUser;
let otherViewer: SeededUser;
let apiId: string;
let endpointId: string;
let endpointPath: string;
let appA: string;
let appB: string;
const run = randomUUID().slice(0, 8);
const nodes = { one: `gw-test-${run}-1`, two: `gw-test-${run}-2` };
// The minute before this one: complete, and inside the last hour.
const minute = Math.floor(Date.now() / 60_000) * 60_000 - 60_000;

const endpointUsage = (o: {
  delivered: number;
  bytes: number;
  published: number;
  subs: number;
  refusedPublish: number;
  errors: number;
}) => ({
  endpoint: endpointId,
  path: endpointPath,
  subscriptions: o.subs,
  delivered: o.delivered,
  delivered_bytes: o.bytes,
  published: o.published,
  published_bytes: o.published * 30,
  errors: o.errors,
  refused: { subscriptions: 0, publish: o.refusedPublish, delivered: 0 },
});

function record(node: string, start: number, end: number, apps: unknown[], extra: Record<string, unknown> = {}) {
  return {
    key: node,
    value: JSON.stringify({
      v: 1,
      node,
      version: "9.9.9-test",
      started_at: minute - 3_600_000,
      interval_start: start,
      interval_end: end,
      final: false,
      catalog_offset_lag: 2,
      connections: 3,
      apps,
      ...extra,
    }),
  };
}

async function getJson(path: string, key?: string) {
  const res = await rawApi(path, { key });
  return { status: res.status, body: res.headers.get("content-type")?.includes("json") ? await res.json() : await res.text() };
}

async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe("usage API", () => {
  before(async () => {
    [admin, editor, apiOwner, appOwner, otherViewer] = await Promise.all([
      seedUser("admin", "usage-admin"),
      seedUser("editor", "usage-editor"),
      seedUser("viewer", "usage-api-owner"),
      seedUser("viewer", "usage-app-owner"),
      seedUser("viewer", "usage-other"),
    ]);
    const topic = await createTopic("usage");
    const api = await editor.api.POST("/apis", { body: { name: `usage-${run}`, version: "1.0.0", ownerId: apiOwner.user.id } });
    assert.equal(api.response.status, 201, JSON.stringify(api.error));
    apiId = api.data!.id;
    const ep = await editor.api.POST("/apis/{apiId}/endpoints", {
      params: { path: { apiId } },
      body: { path: `/${topic}/{symbol}`, operations: ["subscribe", "publish"] },
    });
    assert.equal(ep.response.status, 201, JSON.stringify(ep.error));
    endpointId = ep.data!.id;
    endpointPath = ep.data!.path;
    const a = await appOwner.api.POST("/apps", { body: { name: `usage-a-${run}` } });
    const b = await otherViewer.api.POST("/apps", { body: { name: `usage-b-${run}` } });
    appA = a.data!.id;
    appB = b.data!.id;

    await producer.connect();
    await producer.send({
      topic: usageTopic,
      acks: -1,
      messages: [
        record(nodes.one, minute, minute + 5000, [
          {
            app: appA,
            connections: 2,
            refused: { connections: 1 },
            endpoints: [endpointUsage({ delivered: 100, bytes: 2000, published: 3, subs: 2, refusedPublish: 4, errors: 1 })],
          },
          {
            app: appB,
            connections: 1,
            refused: { connections: 0 },
            endpoints: [endpointUsage({ delivered: 7, bytes: 70, published: 0, subs: 1, refusedPublish: 0, errors: 0 })],
          },
        ]),
        // The same interval again (a redelivery): counted once.
        record(nodes.one, minute, minute + 5000, [
          {
            app: appA,
            connections: 2,
            refused: { connections: 1 },
            endpoints: [endpointUsage({ delivered: 100, bytes: 2000, published: 3, subs: 2, refusedPublish: 4, errors: 1 })],
          },
        ]),
        record(
          nodes.two,
          minute + 1000,
          minute + 6000,
          [
            {
              app: appA,
              connections: 1,
              refused: { connections: 0 },
              endpoints: [endpointUsage({ delivered: 50, bytes: 1000, published: 0, subs: 1, refusedPublish: 0, errors: 0 })],
            },
          ],
          { final: true },
        ),
        // Node one's latest interval, ending now and 60 s long (live for 3 minutes). No traffic, so no buckets.
        record(nodes.one, Date.now() - 60_000, Date.now(), []),
      ],
    });
    await producer.disconnect();
    // The stack's bridge aggregates them within a second or two.
    await eventually("the usage aggregated", async () => {
      const r = await getJson(`/apps/${appA}/usage`, editor.key);
      return r.status === 200 && r.body.totals.delivered === 150 ? r : undefined;
    });
  });
  after(async () => {
    await producer.disconnect().catch(() => {});
  });

  test("an app's usage: exact totals, connections summed over nodes, its endpoint on top", async () => {
    const { status, body } = await getJson(`/apps/${appA}/usage?range=hour`, appOwner.key);
    assert.equal(status, 200);
    assert.deepEqual(body.scope, { kind: "app", id: appA, name: `usage-a-${run}` });
    assert.equal(body.bucketSeconds, 60);
    assert.equal(body.points.length, 60);
    assert.deepEqual(body.totals, { delivered: 150, deliveredBytes: 3000, published: 3, publishedBytes: 90, errors: 1, refused: 4 });
    const point = body.points.find((p: { time: string }) => Date.parse(p.time) === minute);
    assert.deepEqual(point, {
      time: new Date(minute).toISOString(),
      deliveredPerSecond: 150 / 60,
      deliveredBytesPerSecond: 3000 / 60,
      publishedPerSecond: 3 / 60,
      publishedBytesPerSecond: 90 / 60,
      subscriptions: 3,
      connections: 3,
      errors: 1,
      refusedConnections: 1,
      refusedSubscriptions: 0,
      refusedPublish: 4,
      refusedDelivered: 0,
    });
    assert.deepEqual(body.topApps, []);
    assert.deepEqual(
      body.topEndpoints.map((e: { endpointId: string; path: string; apiId: string; delivered: number }) => [
        e.endpointId,
        e.path,
        e.apiId,
        e.delivered,
      ]),
      [[endpointId, endpointPath, apiId, 150]],
    );
    // The week view reads the hour buckets: the same totals.
    const week = await getJson(`/apps/${appA}/usage?range=week`, appOwner.key);
    assert.equal(week.body.bucketSeconds, 3600);
    assert.deepEqual(week.body.totals, body.totals);
  });

  test("an API's and an endpoint's usage sum every app; connections are not theirs to report", async () => {
    for (const path of [`/apis/${apiId}/usage`, `/endpoints/${endpointId}/usage`]) {
      const { status, body } = await getJson(path, apiOwner.key);
      assert.equal(status, 200, path);
      assert.deepEqual(
        body.totals,
        { delivered: 157, deliveredBytes: 3070, published: 3, publishedBytes: 90, errors: 1, refused: 4 },
        path,
      );
      const point = body.points.find((p: { time: string }) => Date.parse(p.time) === minute);
      assert.equal(point.connections, null);
      assert.equal(point.subscriptions, 4);
      assert.deepEqual(
        body.topApps.map((a: { appId: string; name: string; delivered: number }) => [a.appId, a.name, a.delivered]),
        [
          [appA, `usage-a-${run}`, 150],
          [appB, `usage-b-${run}`, 7],
        ],
        path,
      );
    }
  });

  test("CSV: ?format=csv and Accept: text/csv give the points as CSV; format=json wins over Accept", async () => {
    const byQuery = await rawApi(`/apps/${appA}/usage?range=hour&format=csv`, { key: appOwner.key });
    assert.equal(byQuery.status, 200);
    assert.match(byQuery.headers.get("content-type") ?? "", /^text\/csv/);
    assert.match(byQuery.headers.get("content-disposition") ?? "", new RegExp(`attachment; filename="sluice-usage-app-${appA}-hour.csv"`));
    const text = await byQuery.text();
    const lines = text.trimEnd().split("\r\n");
    assert.equal(lines.length, 61);
    assert.equal(lines[0]!.split(",")[0], "time");
    assert.ok(lines.includes(`${new Date(minute).toISOString()},2.5,50,0.05,1.5,3,3,1,1,0,4,0`), text);
    const byAccept = await rawApi(`/apps/${appA}/usage`, { key: appOwner.key, headers: { accept: "text/csv" } });
    assert.match(byAccept.headers.get("content-type") ?? "", /^text\/csv/);
    assert.equal(await byAccept.text(), text);
    const forcedJson = await rawApi(`/apps/${appA}/usage?format=json`, { key: appOwner.key, headers: { accept: "text/csv" } });
    assert.match(forcedJson.headers.get("content-type") ?? "", /^application\/json/);
    const bad = await rawApi(`/apps/${appA}/usage?range=year`, { key: appOwner.key });
    assert.equal(bad.status, 422);
  });

  test("gateway nodes: the live node and the one that stopped, with their last record", async () => {
    const { status, body } = await getJson("/gateway-nodes", editor.key);
    assert.equal(status, 200);
    const mine = body.items.filter((n: { node: string }) => n.node.startsWith(`gw-test-${run}`));
    assert.deepEqual(
      mine.map((n: Record<string, unknown>) => [n.node, n.live, n.final, n.version, n.connections, n.catalogOffsetLag]),
      [
        [nodes.one, true, false, "9.9.9-test", 3, 2],
        [nodes.two, false, true, "9.9.9-test", 3, 2],
      ],
    );
    assert.ok(mine[0].uptimeSeconds >= 3600);
  });

  test("role matrix of every usage route (fail closed)", async () => {
    const missing = randomUUID();
    const who = {
      anonymous: undefined,
      viewer: otherViewer.key,
      apiOwner: apiOwner.key,
      appOwner: appOwner.key,
      editor: editor.key,
      admin: admin.key,
    };
    const matrix: Array<[string, Record<keyof typeof who, number>]> = [
      ["/usage", { anonymous: 401, viewer: 403, apiOwner: 403, appOwner: 403, editor: 200, admin: 200 }],
      ["/gateway-nodes", { anonymous: 401, viewer: 403, apiOwner: 403, appOwner: 403, editor: 200, admin: 200 }],
      [`/apis/${apiId}/usage`, { anonymous: 401, viewer: 403, apiOwner: 200, appOwner: 403, editor: 200, admin: 200 }],
      [`/endpoints/${endpointId}/usage`, { anonymous: 401, viewer: 403, apiOwner: 200, appOwner: 403, editor: 200, admin: 200 }],
      // An app's usage is its owner's: another viewer, even the owner of the API it uses, gets 404 as for the app itself.
      [`/apps/${appA}/usage`, { anonymous: 401, viewer: 404, apiOwner: 404, appOwner: 200, editor: 200, admin: 200 }],
      [`/apps/${appB}/usage`, { anonymous: 401, viewer: 200, apiOwner: 404, appOwner: 404, editor: 200, admin: 200 }],
      [`/apis/${missing}/usage`, { anonymous: 401, viewer: 404, apiOwner: 404, appOwner: 404, editor: 404, admin: 404 }],
      [`/endpoints/${missing}/usage`, { anonymous: 401, viewer: 404, apiOwner: 404, appOwner: 404, editor: 404, admin: 404 }],
      [`/apps/${missing}/usage`, { anonymous: 401, viewer: 404, apiOwner: 404, appOwner: 404, editor: 404, admin: 404 }],
      ["/apps/not-a-uuid/usage", { anonymous: 401, viewer: 422, apiOwner: 422, appOwner: 422, editor: 422, admin: 422 }],
    ];
    const got: string[] = [];
    const want: string[] = [];
    for (const [path, expected] of matrix) {
      for (const [role, key] of Object.entries(who) as Array<[keyof typeof who, string | undefined]>) {
        for (const format of ["", "?format=csv"]) {
          const res = await rawApi(`${path}${format}`, { key });
          await res.arrayBuffer();
          got.push(`${role} GET ${path}${format} → ${res.status}`);
          want.push(`${role} GET ${path}${format} → ${expected[role]}`);
        }
      }
    }
    assert.deepEqual(got, want);
  });

  test("role matrix of every traffic page (signed-in sessions; anonymous is sent to sign in)", async () => {
    const users = { viewer: otherViewer, apiOwner, appOwner, editor, admin };
    const cookies = Object.fromEntries(
      await Promise.all(Object.entries(users).map(async ([role, u]) => [role, (await sessionFor(u.user.id)).cookie] as const)),
    ) as Record<keyof typeof users, string>;
    const matrix: Array<[string, Record<keyof typeof users, number>]> = [
      ["/traffic", { viewer: 200, apiOwner: 200, appOwner: 200, editor: 200, admin: 200 }],
      ["/traffic/nodes", { viewer: 403, apiOwner: 403, appOwner: 403, editor: 200, admin: 200 }],
      [`/apis/${apiId}/traffic`, { viewer: 403, apiOwner: 200, appOwner: 403, editor: 200, admin: 200 }],
      [`/apis/${apiId}/endpoints/${endpointId}/traffic`, { viewer: 403, apiOwner: 200, appOwner: 403, editor: 200, admin: 200 }],
      [`/apps/${appA}/traffic`, { viewer: 404, apiOwner: 404, appOwner: 200, editor: 200, admin: 200 }],
      // An endpoint under another API's URL is not found.
      [`/apis/${randomUUID()}/endpoints/${endpointId}/traffic`, { viewer: 403, apiOwner: 404, appOwner: 403, editor: 404, admin: 404 }],
    ];
    const got: string[] = [];
    const want: string[] = [];
    for (const [path, expected] of matrix) {
      const anonymous = await fetch(`${portalUrl}${path}`, { redirect: "manual" });
      got.push(`anonymous ${path} → ${anonymous.status} ${anonymous.headers.get("location")}`);
      want.push(`anonymous ${path} → 307 /login?next=${encodeURIComponent(path)}`);
      for (const role of Object.keys(users) as Array<keyof typeof users>) {
        const res = await fetch(`${portalUrl}${path}`, { headers: { cookie: cookies[role] }, redirect: "manual" });
        const html = await res.text();
        got.push(`${role} ${path} → ${res.status}`);
        want.push(`${role} ${path} → ${expected[role]}`);
        if (res.status === 200 && path !== "/traffic" && path !== "/traffic/nodes") assert.match(html, /data-testid="usage-view"/, path);
      }
    }
    assert.deepEqual(got, want);
    // A viewer's /traffic lists only what they own.
    const own = await (await fetch(`${portalUrl}/traffic`, { headers: { cookie: cookies.appOwner } })).text();
    assert.match(own, new RegExp(`/apps/${appA}/traffic`));
    assert.doesNotMatch(own, new RegExp(appB));
    assert.doesNotMatch(own, /data-testid="usage-view"/);
    const owner = await (await fetch(`${portalUrl}/traffic`, { headers: { cookie: cookies.apiOwner } })).text();
    assert.match(owner, new RegExp(`/apis/${apiId}/traffic`));
  });
});
