// The access-request pages as each role gets them from the server: the inbox,
// the request form and the app page's list (fail closed: signed-out visitors
// are sent to sign in, other people's requests are not shown).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { before, describe, test } from "node:test";

import { createTopic, uniqueName } from "./catalog-helpers";
import { portalUrl, seedUser, sessionFor, type SeededUser } from "./helpers";

const page = (path: string, cookie?: string) => fetch(`${portalUrl}${path}`, { headers: cookie ? { cookie } : {}, redirect: "manual" });

describe("access-request pages", () => {
  const justification = `Wall screen ${randomUUID().slice(0, 8)}`;
  const reason = `Not for screens ${randomUUID().slice(0, 8)}`;
  let editor: SeededUser;
  let admin: SeededUser;
  let apiOwner: SeededUser;
  let requester: SeededUser;
  let stranger: SeededUser;
  let apiId: string;
  let appId: string;
  let appName: string;
  let strangersApp: string;
  const cookies: Record<string, string> = {};

  before(async () => {
    [editor, admin, apiOwner, requester, stranger] = await Promise.all([
      seedUser("editor"),
      seedUser("admin"),
      seedUser("viewer", "page-api-owner"),
      seedUser("viewer", "page-requester"),
      seedUser("viewer", "page-stranger"),
    ]);
    for (const [name, user] of Object.entries({ editor, admin, apiOwner, requester, stranger }))
      cookies[name] = (await sessionFor(user.user.id)).cookie;
    const api = await editor.api.POST("/apis", { body: { name: uniqueName("Pages API"), version: "1.0.0", ownerId: apiOwner.user.id } });
    apiId = api.data!.id;
    const topic = await createTopic("pages-ar");
    const endpoint = await editor.api.POST("/apis/{apiId}/endpoints", {
      params: { path: { apiId } },
      body: { topic, key: "k", operations: ["subscribe"] },
    });
    assert.ok(endpoint.data, JSON.stringify(endpoint.error));
    appName = uniqueName("Pages app");
    appId = (await requester.api.POST("/apps", { body: { name: appName } })).data!.id;
    strangersApp = uniqueName("Strangers app");
    await stranger.api.POST("/apps", { body: { name: strangersApp } });
    const pending = await requester.api.POST("/apps/{appId}/access-requests", {
      params: { path: { appId } },
      body: { apiId, operations: ["subscribe"], justification },
    });
    assert.equal(pending.response.status, 201, JSON.stringify(pending.error));
  });

  test("the inbox: signed-out visitors sign in; deciders see the pending request, anyone else does not", async () => {
    const anonymous = await page("/access-requests");
    assert.equal(anonymous.status, 307);
    assert.match(anonymous.headers.get("location") ?? "", /\/login/);
    for (const decider of ["apiOwner", "editor", "admin"]) {
      const res = await page("/access-requests", cookies[decider]);
      assert.equal(res.status, 200);
      const html = await res.text();
      assert.ok(html.includes(justification), `${decider} sees the request`);
      assert.ok(html.includes("Approve"), `${decider} may approve`);
    }
    for (const other of ["requester", "stranger"]) {
      const html = await (await page("/access-requests", cookies[other])).text();
      assert.ok(!html.includes(justification), `${other} does not see it`);
    }
  });

  test("the request form offers only your own apps; unknown APIs are 404", async () => {
    assert.equal((await page(`/apis/${apiId}/request-access`)).status, 307);
    const html = await (await page(`/apis/${apiId}/request-access`, cookies.requester)).text();
    assert.ok(html.includes(appName));
    assert.ok(!html.includes(strangersApp));
    assert.ok(html.includes("Send request"));
    const none = await (await page(`/apis/${apiId}/request-access`, cookies.apiOwner)).text();
    assert.ok(none.includes("You have no app yet"));
    assert.equal((await page(`/apis/${randomUUID()}/request-access`, cookies.requester)).status, 404);
  });

  test("the app page lists the app's requests with the rejection's reason; other viewers get 404", async () => {
    const { data } = await requester.api.GET("/apps/{appId}/access-requests", { params: { path: { appId } } });
    await apiOwner.api.POST("/access-requests/{requestId}/reject", {
      params: { path: { requestId: data!.items[0]!.id } },
      body: { reason },
    });
    const html = await (await page(`/apps/${appId}`, cookies.requester)).text();
    assert.ok(html.includes("Access requests of this app"));
    assert.ok(html.includes(justification));
    assert.ok(html.includes(`Reason: <!-- -->${reason}`) || html.includes(`Reason: ${reason}`));
    assert.ok(html.includes(apiOwner.user.email), "the decider is named");
    assert.equal((await page(`/apps/${appId}`, cookies.stranger)).status, 404);
    assert.equal((await page(`/apps/${appId}`, cookies.apiOwner)).status, 404);
    assert.equal((await page(`/apps/${appId}`, cookies.editor)).status, 200);
  });

  test("the webhook delivery log is for admins: others get 403, signed-out visitors sign in", async () => {
    assert.equal((await page("/settings/webhooks")).status, 307);
    for (const other of ["requester", "apiOwner", "editor"])
      assert.equal((await page("/settings/webhooks", cookies[other])).status, 403, other);
    const res = await page("/settings/webhooks", cookies.admin);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /No webhook is configured/);
  });
});
