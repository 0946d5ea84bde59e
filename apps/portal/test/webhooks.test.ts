// The outgoing webhook against the real PostgreSQL: access-request steps queue
// a delivery in their own transaction (none when no webhook is set, none for a
// rolled-back step), the delivery pass posts it signed to a local receiver,
// retries with backoff and gives up after the last attempt; the delivery log is
// for admins only. The webhook settings are this process's environment, so the
// steps run through the domain functions here rather than the stack's portal.
import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, beforeEach, describe, test } from "node:test";

import { endpoints, webhookDeliveries } from "@sluice/db";
import { eq, sql } from "drizzle-orm";

import { authorize } from "../lib/auth/actor";
import { approveAccessRequest } from "../lib/domain/access-requests/approve-access-request";
import { createAccessRequest } from "../lib/domain/access-requests/create-access-request";
import { rejectAccessRequest } from "../lib/domain/access-requests/reject-access-request";
import { deliverDueWebhooks } from "../lib/domain/webhooks/deliver-due-webhooks";
import { MAX_WEBHOOK_ATTEMPTS, verifySignature } from "../lib/webhooks/signature";
import { createTopic, uniqueName } from "./catalog-helpers";
import { apiClient, db, seedUser, type SeededUser } from "./helpers";

const SECRET = "a webhook secret of at least 32 characters";
const received: { headers: IncomingHttpHeaders; body: string }[] = [];
let answer = 200;
const receiver = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => {
    body += c;
  });
  req.on("end", () => {
    received.push({ headers: req.headers, body });
    res.writeHead(answer).end();
  });
});
let url: string;

let editor: SeededUser;
let requester: SeededUser;
let apiId: string;
let endpointIds: string[];

const settings = () => ({ url, secret: SECRET });
const deliveriesOf = (requestId: string) =>
  db
    .select()
    .from(webhookDeliveries)
    .where(sql`${webhookDeliveries.payload} -> 'data' -> 'request' ->> 'id' = ${requestId}`)
    .orderBy(webhookDeliveries.createdAt);

async function newRequest(endpointId: string) {
  const { data } = await requester.api.POST("/apps", { body: { name: uniqueName("Webhook app") } });
  return createAccessRequest({
    db,
    actor: authorize(requester.actor, "viewer"),
    appId: data!.id,
    input: { apiId, endpointIds: [endpointId], operations: ["subscribe"], justification: "for the webhook test" },
  });
}

before(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/sluice`;
  process.env.SLUICE_WEBHOOK_URL = url;
  process.env.SLUICE_WEBHOOK_SECRET = SECRET;
  [editor, requester] = await Promise.all([seedUser("editor"), seedUser("viewer", "webhook-requester")]);
  const topic = await createTopic("webhooks");
  apiId = (await editor.api.POST("/apis", { body: { name: uniqueName("Webhook API"), version: "1.0.0" } })).data!.id;
  endpointIds = [];
  for (const key of ["a", "b", "c", "d"]) {
    const { data } = await editor.api.POST("/apis/{apiId}/endpoints", {
      params: { path: { apiId } },
      body: { topic, key, operations: ["subscribe"] },
    });
    endpointIds.push(data!.id);
  }
});

after(() => {
  receiver.close();
  delete process.env.SLUICE_WEBHOOK_URL;
  delete process.env.SLUICE_WEBHOOK_SECRET;
});

beforeEach(() => {
  received.length = 0;
  answer = 200;
});

describe("webhook", () => {
  test("a request and its approval are posted, signed, with the delivery id; delivered once", async () => {
    const request = await newRequest(endpointIds[0]!);
    await approveAccessRequest({ db, actor: authorize(editor.actor, "editor"), requestId: request.id });
    const queued = await deliveriesOf(request.id);
    assert.deepEqual(
      queued.map((d) => [d.event, d.state, d.url, d.attempts]),
      [
        ["access_request.created", "pending", url, 0],
        ["access_request.approved", "pending", url, 0],
      ],
    );

    const outcomes = (await deliverDueWebhooks({ db, settings: settings() })).filter((o) => queued.some((q) => q.id === o.id));
    assert.deepEqual(
      outcomes.map((o) => [o.state, o.status]),
      [
        ["delivered", 200],
        ["delivered", 200],
      ],
    );
    const mine = received.filter((r) => queued.some((q) => q.id === r.headers["sluice-delivery"]));
    assert.equal(mine.length, 2);
    for (const call of mine) {
      const body = JSON.parse(call.body);
      assert.equal(body.id, call.headers["sluice-delivery"]);
      assert.equal(body.event, call.headers["sluice-event"]);
      assert.equal(body.data.request.id, request.id);
      assert.equal(call.headers["content-type"], "application/json");
      const header = String(call.headers["sluice-signature"]);
      assert.ok(verifySignature({ secret: SECRET, header, body: call.body, nowSeconds: Math.floor(Date.now() / 1000) }));
      assert.ok(
        !verifySignature({
          secret: "another secret of at least 32 characters",
          header,
          body: call.body,
          nowSeconds: Math.floor(Date.now() / 1000),
        }),
      );
    }
    const approved = JSON.parse(mine.find((c) => c.headers["sluice-event"] === "access_request.approved")!.body);
    assert.equal(approved.data.request.state, "approved");
    assert.equal(approved.data.grants.created.length, 1);

    const done = await deliveriesOf(request.id);
    assert.ok(done.every((d) => d.state === "delivered" && d.deliveredAt && d.attempts === 1 && d.lastStatus === 200));
    // Delivered is final: another pass sends nothing of it.
    received.length = 0;
    await deliverDueWebhooks({ db, settings: settings() });
    assert.equal(received.filter((r) => queued.some((q) => q.id === r.headers["sluice-delivery"])).length, 0);
  });

  test("a failing receiver is retried with backoff, and the delivery fails after the last attempt", async () => {
    answer = 500;
    const request = await newRequest(endpointIds[1]!);
    const [delivery] = await deliveriesOf(request.id);
    const pass = async () => (await deliverDueWebhooks({ db, settings: settings() })).find((o) => o.id === delivery!.id);
    assert.deepEqual(await pass(), { id: delivery!.id, state: "pending", status: 500 });
    let [row] = await deliveriesOf(request.id);
    assert.deepEqual([row!.attempts, row!.lastStatus, row!.lastError], [1, 500, "the receiver answered HTTP 500"]);
    const wait = (row!.nextAttemptAt.getTime() - row!.lastAttemptAt!.getTime()) / 1000;
    assert.ok(Math.abs(wait - 30) < 1, `first retry after 30 s, got ${wait}`);
    assert.equal(await pass(), undefined, "not due before its backoff ends");

    await db.update(webhookDeliveries).set({ nextAttemptAt: sql`now()` }).where(eq(webhookDeliveries.id, delivery!.id));
    assert.equal((await pass())?.state, "pending");
    [row] = await deliveriesOf(request.id);
    assert.ok(Math.abs((row!.nextAttemptAt.getTime() - row!.lastAttemptAt!.getTime()) / 1000 - 60) < 1, "the second wait doubles");

    // The last allowed attempt fails it for good.
    await db
      .update(webhookDeliveries)
      .set({ nextAttemptAt: sql`now()`, attempts: MAX_WEBHOOK_ATTEMPTS - 1 })
      .where(eq(webhookDeliveries.id, delivery!.id));
    assert.deepEqual(await pass(), { id: delivery!.id, state: "failed", status: 500 });
    [row] = await deliveriesOf(request.id);
    assert.deepEqual([row!.state, row!.attempts, row!.deliveredAt], ["failed", MAX_WEBHOOK_ATTEMPTS, null]);

    // A receiver nobody listens at is an error without a status; the stored URL is the one called.
    const unreachable = await newRequest(endpointIds[2]!);
    const [other] = await deliveriesOf(unreachable.id);
    await db.update(webhookDeliveries).set({ url: "http://127.0.0.1:9/closed" }).where(eq(webhookDeliveries.id, other!.id));
    const outcome = (await deliverDueWebhooks({ db, settings: settings() })).find((o) => o.id === other!.id);
    assert.deepEqual(outcome, { id: other!.id, state: "pending", status: null });
    const [failed] = await deliveriesOf(unreachable.id);
    assert.ok(failed!.lastError, "the error is logged");
  });

  test("a rolled-back step queues nothing; without a webhook nothing is queued", async () => {
    const request = await newRequest(endpointIds[3]!);
    await db.delete(endpoints).where(eq(endpoints.id, endpointIds[3]!));
    await assert.rejects(
      approveAccessRequest({ db, actor: authorize(editor.actor, "editor"), requestId: request.id }),
      /nothing is left to grant/,
    );
    assert.deepEqual(
      (await deliveriesOf(request.id)).map((d) => d.event),
      ["access_request.created"],
    );

    delete process.env.SLUICE_WEBHOOK_URL;
    delete process.env.SLUICE_WEBHOOK_SECRET;
    try {
      await rejectAccessRequest({ db, actor: authorize(editor.actor, "editor"), requestId: request.id, input: { reason: "gone" } });
      assert.deepEqual(
        (await deliveriesOf(request.id)).map((d) => d.event),
        ["access_request.created"],
      );
    } finally {
      process.env.SLUICE_WEBHOOK_URL = url;
      process.env.SLUICE_WEBHOOK_SECRET = SECRET;
    }
  });

  test("the delivery log: admins only (anonymous 401, viewers and editors 403)", async () => {
    const [viewer, admin] = await Promise.all([seedUser("viewer"), seedUser("admin")]);
    assert.equal((await apiClient().GET("/webhook-deliveries", {})).response.status, 401);
    assert.equal((await viewer.api.GET("/webhook-deliveries", {})).response.status, 403);
    assert.equal((await editor.api.GET("/webhook-deliveries", {})).response.status, 403);
    const { data, response } = await admin.api.GET("/webhook-deliveries", { params: { query: { state: "failed", limit: 200 } } });
    assert.equal(response.status, 200);
    assert.ok(data!.items.length >= 1);
    assert.ok(data!.items.every((d) => d.state === "failed"));
  });
});
