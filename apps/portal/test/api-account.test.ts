// The management API's authentication, role checks and problem+json errors,
// against the running portal and its real database.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { portalUrl, rawApi, seedUser, sessionFor } from "./helpers";

describe("authentication", () => {
  test("no credentials: 401 problem+json", async () => {
    const res = await rawApi("/me");
    assert.equal(res.status, 401);
    assert.match(res.headers.get("content-type") ?? "", /application\/problem\+json/);
    const body = await res.json();
    assert.equal(body.status, 401);
    assert.match(body.detail, /API key/);
  });

  test("an unknown key is refused, never treated as anonymous", async () => {
    const res = await rawApi("/me", { key: "slk_not-a-real-key" });
    assert.equal(res.status, 401);
  });

  test("a personal API key authenticates as its owner", async () => {
    const editor = await seedUser("editor");
    const { data, response } = await editor.api.GET("/me");
    assert.equal(response.status, 200);
    assert.deepEqual(data, { id: editor.user.id, email: editor.user.email, role: "editor", authenticatedWith: "api-key" });
  });

  test("a revoked key stops working at once", async () => {
    const viewer = await seedUser("viewer");
    const { data: keys } = await viewer.api.GET("/me/api-keys");
    assert.equal(keys?.items.length, 1);
    const revoke = await viewer.api.DELETE("/me/api-keys/{keyId}", { params: { path: { keyId: keys!.items[0]!.id } } });
    assert.equal(revoke.response.status, 204);
    const after = await viewer.api.GET("/me");
    assert.equal(after.response.status, 401);
  });

  test("a session cookie works for reads; writes need the CSRF token", async () => {
    const admin = await seedUser("admin");
    const { cookie, csrfToken } = await sessionFor(admin.user.id);
    const me = await rawApi("/me", { headers: { cookie } });
    assert.equal(me.status, 200);
    assert.equal((await me.json()).authenticatedWith, "session");

    const body = JSON.stringify({ email: `csrf-${Date.now()}@test.sluice`, role: "viewer" });
    const forged = await rawApi("/users", { method: "POST", headers: { cookie, "content-type": "application/json" }, body });
    assert.equal(forged.status, 403);
    assert.match((await forged.json()).detail, /CSRF/);
    const ok = await rawApi("/users", {
      method: "POST",
      headers: { cookie, "content-type": "application/json", "x-csrf-token": csrfToken },
      body,
    });
    assert.equal(ok.status, 201);
  });
});

describe("users (admin only)", () => {
  test("viewers and editors cannot list or invite users", async () => {
    for (const role of ["viewer", "editor"] as const) {
      const { api } = await seedUser(role);
      const list = await api.GET("/users");
      assert.equal(list.response.status, 403, role);
      const invite = await api.POST("/users", { body: { email: `x-${role}-${Date.now()}@test.sluice`, role: "viewer" } });
      assert.equal(invite.response.status, 403, role);
    }
  });

  test("an admin invites a user and gets a one-time link; bad fields are named", async () => {
    const { api } = await seedUser("admin");
    const email = `invitee-${Date.now()}@test.sluice`;
    const { data, response } = await api.POST("/users", { body: { email, role: "editor", displayName: "In Vitee" } });
    assert.equal(response.status, 201);
    assert.equal(data?.user.email, email);
    assert.equal(data?.user.invitationPending, true);
    assert.match(data!.inviteUrl, /\/setup\/[A-Za-z0-9_-]{40,}$/);

    const again = await api.POST("/users", { body: { email: email.toUpperCase(), role: "viewer" } });
    assert.equal(again.response.status, 409);
    assert.equal(again.error?.errors?.[0]?.field, "email");

    const bad = await rawApi("/users", {
      method: "POST",
      key: (await seedUser("admin")).key,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "nope", role: "owner" }),
    });
    assert.equal(bad.status, 422);
    const problem = await bad.json();
    assert.deepEqual(problem.errors.map((e: { field: string }) => e.field).sort(), ["email", "role"]);
  });

  test("an admin changes a role; an unknown user is 404 and a bad id names the field", async () => {
    const admin = await seedUser("admin");
    const target = await seedUser("viewer");
    const res = await admin.api.PATCH("/users/{userId}", { params: { path: { userId: target.user.id } }, body: { role: "editor" } });
    assert.equal(res.response.status, 200);
    assert.equal(res.data?.role, "editor");
    assert.equal((await target.api.GET("/me")).data?.role, "editor");

    const missing = await admin.api.PATCH("/users/{userId}", {
      params: { path: { userId: "00000000-0000-4000-8000-000000000000" } },
      body: { role: "editor" },
    });
    assert.equal(missing.response.status, 404);
    const badId = await admin.api.PATCH("/users/{userId}", { params: { path: { userId: "42" } }, body: { role: "editor" } });
    assert.equal(badId.response.status, 422);
    assert.equal(badId.error?.errors?.[0]?.field, "userId");
  });

  test("disabling a user ends their API access", async () => {
    const admin = await seedUser("admin");
    const target = await seedUser("editor");
    const res = await admin.api.PATCH("/users/{userId}", { params: { path: { userId: target.user.id } }, body: { disabled: true } });
    assert.equal(res.response.status, 200);
    assert.equal((await target.api.GET("/me")).response.status, 401);
  });
});

describe("protocol of errors", () => {
  test("unknown operations and wrong methods are problem+json too", async () => {
    const { key } = await seedUser("viewer");
    const missing = await rawApi("/no-such-thing", { key });
    assert.equal(missing.status, 404);
    const wrong = await rawApi("/me", { key, method: "DELETE" });
    assert.equal(wrong.status, 405);
    assert.equal(wrong.headers.get("allow"), "GET");
  });

  test("a body that is not JSON is refused with 400 or 415", async () => {
    const { key } = await seedUser("admin");
    const notJson = await rawApi("/users", { key, method: "POST", headers: { "content-type": "application/json" }, body: "{oops" });
    assert.equal(notJson.status, 400);
    const wrongType = await rawApi("/users", { key, method: "POST", headers: { "content-type": "text/plain" }, body: "{}" });
    assert.equal(wrongType.status, 415);
  });

  test("the OpenAPI document is public and describes this API", async () => {
    const res = await fetch(`${portalUrl}/api/v1/openapi.json`);
    assert.equal(res.status, 200);
    const doc = await res.json();
    assert.equal(doc.openapi, "3.1.0");
    assert.ok(doc.paths["/me"].get);
  });
});
