// Account rules that need an empty install: each test gets its own scratch database.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { accountLinks, loginAttempts, users } from "@sluice/db";
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

    // A restart (or a second replica starting) prints the same link, still working.
    const second = await ensureFirstAdmin({ db, env: {} });
    assert.equal(second.kind, "setup-link");
    if (first.kind !== "setup-link" || second.kind !== "setup-link") return;
    assert.equal(second.url, first.url);
    assert.deepEqual(second.expiresAt, first.expiresAt);
    assert.ok(await findAccountLink({ db, token: tokenOf(first.url) }));
    // Only the token's hash is readable in the database; the sealed copy opens with SLUICE_SECRET_KEY only.
    const [row] = await db.select().from(accountLinks);
    assert.ok(row?.tokenCiphertext && !row.tokenCiphertext.includes(tokenOf(first.url)));

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
    const [used] = await db.select().from(accountLinks);
    assert.equal(used?.tokenCiphertext, null, "a used link keeps no sealed token");
  });

  test("a link sealed under another SLUICE_SECRET_KEY is replaced by a new one", async (t) => {
    const db = await scratchDatabase(t);
    const first = await ensureFirstAdmin({ db, env: {} });
    await db.update(accountLinks).set({ tokenCiphertext: "v1.AAAAAAAAAAAAAAAA.AAAA.AAAAAAAAAAAAAAAAAAAAAA" });
    const second = await ensureFirstAdmin({ db, env: {} });
    if (first.kind !== "setup-link" || second.kind !== "setup-link") return assert.fail("setup links expected");
    assert.notEqual(second.url, first.url);
    assert.equal(await findAccountLink({ db, token: tokenOf(first.url) }), undefined);
    assert.ok(await findAccountLink({ db, token: tokenOf(second.url) }));
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

  test("attempts racing for the last free place in the window: at most one is checked", async (t) => {
    const db = await scratchDatabase(t);
    await ensureFirstAdmin({ db, env: { SLUICE_ADMIN_EMAIL: "ops@example.com", SLUICE_ADMIN_PASSWORD: TEST_PASSWORD } });
    for (let i = 0; i < 4; i++)
      await rejects(signIn({ db, input: { email: "ops@example.com", password: `wrong ${i}` }, ip: `10.0.3.${i}` }), 401);
    const racing = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        signIn({ db, input: { email: "ops@example.com", password: `also wrong ${i}` }, ip: `10.0.4.${i}` }),
      ),
    );
    const statuses = racing.map((r) => (r.status === "rejected" && r.reason instanceof AppError ? r.reason.status : 0));
    const checked = statuses.filter((s) => s === 401).length;
    // At most one (none when all six wrote their attempt before any counted: fail closed).
    assert.ok(checked <= 1, `at most one attempt checked: ${statuses}`);
    assert.equal(statuses.filter((s) => s === 429).length, 6 - checked, `the rest refused: ${statuses}`);
    // Refused attempts leave no trace.
    assert.equal((await db.select().from(loginAttempts)).length, 4 + checked);
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
