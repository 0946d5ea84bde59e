// The plan parts of the pages as each role gets them from the server: the API
// page lists plans to everyone and offers the plan forms only to the API's
// owner, editors and admins; the request form offers the plans with their
// limits; the app page shows a grant's plan and limits, and the plan select
// only to editors and admins.
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";

import { createTopic, uniqueName } from "./catalog-helpers";
import { portalUrl, seedUser, sessionFor, type SeededUser } from "./helpers";

const page = async (path: string, cookie?: string) => {
  const res = await fetch(`${portalUrl}${path}`, { headers: cookie ? { cookie } : {}, redirect: "manual" });
  return { status: res.status, html: await res.text() };
};

describe("plan pages", () => {
  let editor: SeededUser;
  let apiOwner: SeededUser;
  let requester: SeededUser;
  let apiId: string;
  let appId: string;
  let planName: string;
  const cookies: Record<string, string> = {};

  before(async () => {
    let admin: SeededUser;
    let stranger: SeededUser;
    [editor, admin, apiOwner, requester, stranger] = await Promise.all([
      seedUser("editor"),
      seedUser("admin"),
      seedUser("viewer", "plan-page-owner"),
      seedUser("viewer", "plan-page-requester"),
      seedUser("viewer", "plan-page-stranger"),
    ]);
    for (const [name, user] of Object.entries({ editor, admin, apiOwner, requester, stranger }))
      cookies[name] = (await sessionFor(user.user.id)).cookie;
    apiId = (await editor.api.POST("/apis", { body: { name: uniqueName("Plan pages API"), version: "1.0.0", ownerId: apiOwner.user.id } }))
      .data!.id;
    const topic = await createTopic("plan-pages");
    const endpoint = await editor.api.POST("/apis/{apiId}/endpoints", {
      params: { path: { apiId } },
      body: { topic, key: "k", operations: ["subscribe"] },
    });
    assert.ok(endpoint.data, JSON.stringify(endpoint.error));
    planName = uniqueName("pro").slice(0, 40);
    const plan = await editor.api.POST("/apis/{apiId}/plans", {
      params: { path: { apiId } },
      body: { name: planName, limits: { connections: 7, publishPerSecond: 20 } },
    });
    assert.ok(plan.data, JSON.stringify(plan.error));
    appId = (await requester.api.POST("/apps", { body: { name: uniqueName("Plan pages app") } })).data!.id;
    const grant = await editor.api.POST("/apps/{appId}/grants", {
      params: { path: { appId } },
      body: { endpointPattern: endpoint.data.path, operations: ["subscribe"], planId: plan.data.id },
    });
    assert.equal(grant.response.status, 201, JSON.stringify(grant.error));
  });

  test("the API page: everyone sees the plan and its limits; only the owner, editors and admins get the forms", async () => {
    assert.equal((await page(`/apis/${apiId}`)).status, 307);
    for (const who of ["apiOwner", "editor", "admin", "requester", "stranger"]) {
      const { status, html } = await page(`/apis/${apiId}`, cookies[who]);
      assert.equal(status, 200, who);
      assert.ok(html.includes(planName), who);
      assert.ok(html.includes("7 connections · 20 publishes/s"), who);
      const mayEdit = ["apiOwner", "editor", "admin"].includes(who);
      assert.equal(html.includes("Add a plan"), mayEdit, `${who}: the new-plan form`);
      // The plan has a grant under it, so deletePlan would refuse: no delete button, the reason instead.
      assert.equal(html.includes("In use by 1 grant: move or decide them to delete the plan"), mayEdit, `${who}: why it cannot be deleted`);
      assert.ok(!html.includes(`Delete plan ${planName}`), `${who}: no delete button on a plan in use`);
    }
    const unused = uniqueName("free").slice(0, 40);
    const created = await editor.api.POST("/apis/{apiId}/plans", { params: { path: { apiId } }, body: { name: unused, limits: {} } });
    assert.ok(created.data, JSON.stringify(created.error));
    for (const who of ["apiOwner", "editor", "admin", "requester"]) {
      const { html } = await page(`/apis/${apiId}`, cookies[who]);
      assert.equal(html.includes(`Delete plan ${unused}`), who !== "requester", `${who}: the delete button of an unused plan`);
    }
  });

  test("the request form offers the plan with its limits", async () => {
    const { status, html } = await page(`/apis/${apiId}/request-access`, cookies.requester);
    assert.equal(status, 200);
    assert.match(html, /name="planId"/);
    assert.ok(html.includes("7 connections · 20 publishes/s"));
  });

  test("the app page: the grant's plan and limits for the owner; the plan select for editors and admins only", async () => {
    const owner = await page(`/apps/${appId}`, cookies.requester);
    assert.equal(owner.status, 200);
    assert.ok(owner.html.includes(planName));
    assert.ok(owner.html.includes("7 connections · 20 publishes/s"));
    assert.ok(!owner.html.includes("Set plan"));
    for (const who of ["editor", "admin"]) {
      const { html } = await page(`/apps/${appId}`, cookies[who]);
      assert.ok(html.includes("Set plan"), who);
    }
    assert.equal((await page(`/apps/${appId}`, cookies.stranger)).status, 404);
  });
});
