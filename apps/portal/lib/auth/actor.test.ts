import assert from "node:assert/strict";
import { test } from "node:test";

import { AppError } from "../errors";
import { authorize, tryAuthorize, type Actor, type AuthorizedActor } from "./actor";
import { SYSTEM_ACTOR } from "./system-actor";

const actorWith = (role: Actor["role"]): Actor => ({ userId: "u", email: `${role}@example.com`, role, via: { kind: "session" } });

/** Stands in for a domain function that needs an editor: it takes only an authorized actor. */
const needsEditor = (actor: AuthorizedActor<"editor">) => actor.email;

test("authorize lets an actor through at or above the role and refuses below it with 403", () => {
  assert.equal(needsEditor(authorize(actorWith("editor"), "editor")), "editor@example.com");
  assert.equal(needsEditor(authorize(actorWith("admin"), "admin")), "admin@example.com");
  assert.throws(
    () => authorize(actorWith("viewer"), "editor"),
    (err: unknown) => err instanceof AppError && err.status === 403 && err.message === "This needs the editor role; you are a viewer.",
  );
  assert.throws(
    () => authorize(actorWith("editor"), "admin"),
    (err: unknown) => err instanceof AppError && err.status === 403 && err.message === "This needs the admin role; you are an editor.",
  );
  assert.equal(tryAuthorize(actorWith("viewer"), "editor"), undefined);
  assert.equal(tryAuthorize(actorWith("viewer"), "viewer")?.role, "viewer");
});

test("only a checked actor reaches a function that needs a role (checked by tsc)", () => {
  const viewer = authorize(actorWith("viewer"), "viewer");
  // @ts-expect-error an unchecked actor is not an AuthorizedActor
  assert.equal(needsEditor(actorWith("admin")), "admin@example.com");
  // @ts-expect-error a viewer's authorization does not cover the editor role
  assert.equal(needsEditor(viewer), "viewer@example.com");
  // The portal's own actor is an admin, so it may call everything.
  assert.equal(needsEditor(SYSTEM_ACTOR), "system");
});
