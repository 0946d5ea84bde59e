// Account rules that need an empty install: each test gets its own scratch database.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { users } from "@sluice/db";
import { eq } from "drizzle-orm";

import { actorFromUser, authorize } from "../lib/auth/actor";
import { lookupSession } from "../lib/auth/sessions";
import { completeAccountLink } from "../lib/domain/users/complete-account-link";
import { ensureFirstAdmin } from "../lib/domain/users/ensure-first-admin";
import { findAccountLink } from "../lib/domain/users/find-account-link";
import { inviteUser } from "../lib/domain/users/invite-user";
import { signIn } from "../lib/domain/users/sign-in";
import { updateUser } from "../lib/domain/users/update-user";
import { AppError } from "../lib/errors";
import { scratchDatabase, TEST_PASSWORD } from "./helpers";

const tokenOf = (url: string) => url.split("/setup/")[1]!;
const rejects = (promise: Promise<unknown>, status: number, field?: string) =>
  assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.status, status, err.message);
    if (field) assert.equal(err.fieldErrors[0]?.field, field);
    return true;
  });

describe("first admin", () => {
  test("a fresh install gets a one-time setup link, never a default password", async (t) => {
    const db = await scratchDatabase(t);
    const first = await ensureFirstAdmin({ db, env: {} });
    assert.equal(first.kind, "setup-link");
    assert.equal((await db.select().from(users)).length, 0);

    // A restart prints a new link and the old one stops working.
    const second = await ensureFirstAdmin({ db, env: {} });
    assert.equal(second.kind, "setup-link");
    if (first.kind !== "setup-link" || second.kind !== "setup-link") return;
    assert.equal(await findAccountLink({ db, token: tokenOf(first.url) }), undefined);

    await rejects(
      completeAccountLink({ db, token: tokenOf(second.url), input: { email: "ada@example.com", password: "short" } }),
      422,
      "password",
    );
    // The failed attempt rolled back: the link still works.
    const admin = await completeAccountLink({
      db,
      token: tokenOf(second.url),
      input: { email: "ada@example.com", password: TEST_PASSWORD },
    });
    assert.equal(admin.role, "admin");
    await rejects(
      completeAccountLink({ db, token: tokenOf(second.url), input: { email: "eve@example.com", password: TEST_PASSWORD } }),
      404,
    );
    assert.deepEqual(await ensureFirstAdmin({ db, env: {} }), { kind: "exists" });
  });

  test("or from SLUICE_ADMIN_EMAIL and SLUICE_ADMIN_PASSWORD, checked like any password", async (t) => {
    const db = await scratchDatabase(t);
    await assert.rejects(
      ensureFirstAdmin({ db, env: { SLUICE_ADMIN_EMAIL: "ops@example.com", SLUICE_ADMIN_PASSWORD: "1234" } }),
      /SLUICE_ADMIN_PASSWORD/,
    );
    const made = await ensureFirstAdmin({ db, env: { SLUICE_ADMIN_EMAIL: "ops@example.com", SLUICE_ADMIN_PASSWORD: TEST_PASSWORD } });
    assert.deepEqual(made, { kind: "created-from-env", email: "ops@example.com" });
    const session = await signIn({ db, input: { email: "OPS@example.com", password: TEST_PASSWORD }, ip: "10.0.0.1" });
    assert.equal((await lookupSession({ db, token: session.token }))?.user.email, "ops@example.com");
  });
});

describe("sign-in", () => {
  test("is rate limited per e-mail after 5 failures, with the same answer for unknown e-mails", async (t) => {
    const db = await scratchDatabase(t);
    await ensureFirstAdmin({ db, env: { SLUICE_ADMIN_EMAIL: "ops@example.com", SLUICE_ADMIN_PASSWORD: TEST_PASSWORD } });
    await rejects(signIn({ db, input: { email: "nobody@example.com", password: "whatever" }, ip: "10.0.0.2" }), 401);
    for (let i = 0; i < 5; i++)
      await rejects(signIn({ db, input: { email: "ops@example.com", password: `wrong ${i}` }, ip: `10.0.1.${i}` }), 401);
    // Even the right password is refused until the window passes.
    await rejects(signIn({ db, input: { email: "ops@example.com", password: TEST_PASSWORD }, ip: "10.0.2.1" }), 429);
  });

  test("names the missing field", async (t) => {
    const db = await scratchDatabase(t);
    await rejects(signIn({ db, input: { email: "", password: "" }, ip: "10.0.0.3" }), 422, "email");
  });
});

describe("users", () => {
  test("an invitation sets a password once; the last admin cannot be demoted or disabled", async (t) => {
    const db = await scratchDatabase(t);
    await ensureFirstAdmin({ db, env: { SLUICE_ADMIN_EMAIL: "ops@example.com", SLUICE_ADMIN_PASSWORD: TEST_PASSWORD } });
    const [adminRow] = await db.select().from(users).where(eq(users.email, "ops@example.com"));
    const admin = authorize(actorFromUser(adminRow!, { kind: "session" }), "admin");

    const { user, inviteUrl } = await inviteUser({
      db,
      actor: admin,
      input: { email: "bob@example.com", displayName: "", role: "viewer" },
    });
    await rejects(signIn({ db, input: { email: "bob@example.com", password: TEST_PASSWORD }, ip: "10.0.0.4" }), 401);
    await completeAccountLink({ db, token: tokenOf(inviteUrl), input: { password: TEST_PASSWORD } });
    await signIn({ db, input: { email: "bob@example.com", password: TEST_PASSWORD }, ip: "10.0.0.4" });
    await rejects(completeAccountLink({ db, token: tokenOf(inviteUrl), input: { password: TEST_PASSWORD } }), 404);

    // A viewer's call to updateUser stops at the role check every caller makes to get an admin actor.
    await rejects(
      (async () =>
        updateUser({
          db,
          actor: authorize(actorFromUser(user, { kind: "session" }), "admin"),
          userId: adminRow!.id,
          input: { role: "viewer" },
        }))(),
      403,
    );
    await rejects(updateUser({ db, actor: admin, userId: adminRow!.id, input: { role: "viewer" } }), 409, "role");
    await rejects(updateUser({ db, actor: admin, userId: adminRow!.id, input: { disabled: true } }), 409, "disabled");
    await updateUser({ db, actor: admin, userId: user.id, input: { role: "admin" } });
    const demoted = await updateUser({ db, actor: admin, userId: adminRow!.id, input: { role: "editor" } });
    assert.equal(demoted.role, "editor");
  });
});
