// Integration-test helpers: a real PostgreSQL (DATABASE_URL) and the running
// portal (SLUICE_PORTAL_URL), both from the test stack `./sluice test` starts.
// Users are seeded straight into the database; everything else goes through the
// HTTP API with the typed client generated from the OpenAPI document.
import { randomUUID } from "node:crypto";
import { after } from "node:test";

import { createDb, users, type Database, type User } from "@sluice/db";
import { createScratchDatabase } from "@sluice/db/test-support/scratch";
import createClient, { type Client } from "openapi-fetch";

import { actorFromUser, type Actor, type Role } from "../lib/auth/actor";
import { hashPassword } from "../lib/auth/password";
import { createSession } from "../lib/auth/sessions";
import { createApiKey } from "../lib/domain/api-keys/create-api-key";
import type { paths } from "../lib/api/generated/v1";

export const portalUrl = (() => {
  const url = process.env.SLUICE_PORTAL_URL;
  if (!url) throw new Error("SLUICE_PORTAL_URL is not set: run integration tests through ./sluice test");
  return url;
})();

export const db = createDb({ max: 4 });
after(() => db.$client.end());

export const TEST_PASSWORD = "correct horse battery staple";
let passwordHash: Promise<string> | undefined;

export type ApiClient = Client<paths>;

export interface SeededUser {
  user: User;
  actor: Actor;
  /** A personal API key of this user. */
  key: string;
  /** The typed management-API client, authenticated with `key`. */
  api: ApiClient;
}

/** A unique e-mail per call, so tests never collide with each other or with earlier runs. */
export const uniqueEmail = (label: string) => `${label}-${randomUUID().slice(0, 8)}@test.sluice`;

export async function seedUser(role: Role, label: string = role): Promise<SeededUser> {
  passwordHash ??= hashPassword(TEST_PASSWORD);
  const [user] = await db
    .insert(users)
    .values({ email: uniqueEmail(label), role, passwordHash: await passwordHash })
    .returning();
  const actor = actorFromUser(user!, { kind: "session" });
  const { key } = await createApiKey({ db, actor, input: { name: `${label} test key` } });
  return { user: user!, actor, key, api: apiClient(key) };
}

export function apiClient(key?: string): ApiClient {
  return createClient<paths>({ baseUrl: `${portalUrl}/api/v1`, headers: key ? { authorization: `Bearer ${key}` } : {} });
}

/** A signed-in browser session for `userId`: the Cookie header and the CSRF token. */
export async function sessionFor(userId: string) {
  const { token } = await createSession({ db, userId });
  const [row] = await db.query.sessions.findMany({
    where: (s, { eq }) => eq(s.userId, userId),
    orderBy: (s, { desc }) => desc(s.createdAt),
    limit: 1,
  });
  return { cookie: `sluice_session=${token}`, csrfToken: row!.csrfToken };
}

/** Raw fetch against the API, for what the typed client refuses to send (bad JSON, wrong types). */
export function rawApi(path: string, init: RequestInit & { key?: string } = {}) {
  const headers = new Headers(init.headers);
  if (init.key) headers.set("authorization", `Bearer ${init.key}`);
  return fetch(`${portalUrl}/api/v1${path}`, { ...init, headers });
}

/**
 * A fresh, migrated database on the same server, for tests that need an empty
 * install (first admin, last admin). Dropped when the test `t` ends.
 */
export async function scratchDatabase(t: { after: (fn: () => Promise<void>) => void }): Promise<Database> {
  const scratch = await createScratchDatabase({ serverUrl: process.env.DATABASE_URL!, prefix: "sluice_scratch" });
  const scratchDb = createDb({ url: scratch.url, max: 4 });
  t.after(async () => {
    await scratchDb.$client.end();
    await scratch.drop();
  });
  return scratchDb;
}
