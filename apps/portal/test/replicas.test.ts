// Two portal replicas: two real `next start` processes from one build, on one
// (scratch) database, with one SLUICE_SECRET_KEY, as behind a load balancer.
// Nothing a user does may depend on which replica answers: the setup link both
// printed works once across both, a session made on one is valid on the other
// and signing out on one ends it on both, the sign-in rate limit counts the
// attempts made on both, and an API key works (and is revoked) on both.
// The browser is played by plain HTTP: the pages' forms work without JavaScript
// (progressive enhancement), so a test can post them as a browser would.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import path from "node:path";
import { after, before, describe, test } from "node:test";

import { createDb, users, type Database } from "@sluice/db";
import { createScratchDatabase } from "@sluice/db/test-support/scratch";
import { eq } from "drizzle-orm";

import { actorFromUser } from "../lib/auth/actor";
import { createApiKey } from "../lib/domain/api-keys/create-api-key";
import { RunningProcess, runToCompletion } from "./processes";

const portalDir = path.resolve(import.meta.dirname, "..");
const PASSWORD = "correct horse battery staple";

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

const decodeHtml = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

/** The hidden fields of the first form on the page whose HTML matches `which` (Next's action ids and state among them). */
function hiddenFields(html: string, which: RegExp): [string, string][] {
  const form = [...html.matchAll(/<form[\s\S]*?<\/form>/g)].map((m) => m[0]).find((f) => which.test(f));
  assert.ok(form, `no form matching ${which} on the page`);
  return [...form.matchAll(/<input type="hidden" name="([^"]*)"(?: value="([^"]*)")?\/?>/g)].map((m) => [
    decodeHtml(m[1]!),
    decodeHtml(m[2] ?? ""),
  ]);
}

class Replica {
  constructor(
    readonly name: string,
    readonly base: string,
    readonly proc: RunningProcess,
  ) {}

  get(pathname: string, cookie?: string): Promise<Response> {
    return fetch(`${this.base}${pathname}`, { redirect: "manual", headers: cookie ? { cookie } : {} });
  }

  /** Loads `pathname` and returns its form matching `which`, to post (later) as a browser without JavaScript would. */
  async form(pathname: string, which: RegExp, cookie?: string): Promise<(fields: Record<string, string>) => Promise<Response>> {
    const page = await this.get(pathname, cookie);
    assert.equal(page.status, 200, `${this.name} GET ${pathname}`);
    const hidden = hiddenFields(await page.text(), which);
    return (fields) => this.post(pathname, [...hidden, ...Object.entries(fields)], cookie);
  }

  async submit(pathname: string, which: RegExp, fields: Record<string, string>, cookie?: string): Promise<Response> {
    return (await this.form(pathname, which, cookie))(fields);
  }

  private post(pathname: string, fields: [string, string][], cookie?: string): Promise<Response> {
    const body = new FormData();
    for (const [name, value] of fields) body.append(name, value);
    // Next accepts a server action only from its own origin.
    return fetch(`${this.base}${pathname}`, {
      method: "POST",
      body,
      redirect: "manual",
      headers: { origin: this.base, ...(cookie ? { cookie } : {}) },
    });
  }

  async signIn(email: string, password: string): Promise<Response> {
    return this.submit("/login", /name="password"/, { email, password });
  }
}

const sessionCookie = (res: Response) => {
  const set = res.headers.getSetCookie().find((c) => c.startsWith("sluice_session="));
  return set?.split(";")[0];
};
/** Whether the cookie's session is valid on the replica: /api/v1/me names its user, or answers 401. */
const signedIn = async (replica: Replica, cookie: string) => {
  const res = await replica.get("/api/v1/me", cookie);
  if (res.status === 401) return false;
  assert.equal(res.status, 200, `${replica.name}: /api/v1/me`);
  assert.equal(((await res.json()) as { email: string }).email, "first@example.com");
  return true;
};

let db: Database;
let dropDb: () => Promise<void>;
let setupUrls: string[];
let a: Replica;
let b: Replica;

before(async () => {
  assert.ok(
    existsSync(path.join(portalDir, ".next/BUILD_ID")),
    "no portal build: `next build` first (./sluice test builds it when it starts the stack)",
  );
  const scratch = await createScratchDatabase({ serverUrl: process.env.DATABASE_URL!, prefix: "sluice_replicas" });
  db = createDb({ url: scratch.url, max: 2 });
  dropDb = scratch.drop;
  const [portA, portB] = [await freePort(), await freePort()];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: scratch.url,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    // Behind a load balancer both would share one public URL; here it only shapes the printed links.
    SLUICE_PORTAL_PUBLIC_URL: `http://127.0.0.1:${portA}`,
  };
  delete env.SLUICE_DEMO_TOPIC;
  delete env.SLUICE_DEMO_AVRO_TOPIC;
  delete env.SLUICE_ADMIN_EMAIL;
  delete env.SLUICE_ADMIN_PASSWORD;
  // Each replica's start runs the prepare step, as the launcher (or a chart) does.
  setupUrls = [];
  for (let i = 0; i < 2; i++) {
    const prepared = await runToCompletion([process.execPath, "--import", "tsx", "scripts/prepare.ts"], {
      cwd: portalDir,
      env,
      timeoutMs: 120_000,
    });
    setupUrls.push(JSON.parse(prepared.lines.at(-1)!).admin.url);
  }
  const nextBin = createRequire(path.join(portalDir, "package.json")).resolve("next/dist/bin/next");
  const start = async (name: string, port: number) => {
    const proc = new RunningProcess([process.execPath, nextBin, "start", "--hostname", "127.0.0.1", "--port", String(port)], {
      cwd: portalDir,
      env,
    });
    const replica = new Replica(name, `http://127.0.0.1:${port}`, proc);
    const deadline = Date.now() + 120_000;
    for (;;) {
      const ok = await fetch(`${replica.base}/api/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return replica;
      if (proc.exitCode !== undefined || Date.now() > deadline) throw new Error(`replica ${name} did not start: ${proc.describe()}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  [a, b] = await Promise.all([start("A", portA), start("B", portB)]);
});

after(async () => {
  await Promise.all([a?.proc.stop(), b?.proc.stop()]);
  await db?.$client.end();
  await dropDb?.();
});

describe("two portal replicas on one database", () => {
  test("both print the same setup link; it works once across both, and its session is valid on both", async () => {
    assert.equal(setupUrls[0], setupUrls[1], "the second replica's start printed the first one's link");
    const setupPath = new URL(setupUrls[0]!).pathname;
    // Both offer the form (B's is kept, to post after A used the link).
    const setupOnB = await b.form(setupPath, /name="passwordConfirm"/);
    const done = await a.submit(setupPath, /name="passwordConfirm"/, {
      email: "first@example.com",
      password: PASSWORD,
      passwordConfirm: PASSWORD,
    });
    assert.equal(done.status, 303, `set up on A: ${done.status} ${await done.clone().text()}`);
    const cookie = sessionCookie(done);
    assert.ok(cookie, "signed in after the setup");
    assert.equal(await signedIn(b, cookie), true, "A's session is valid on B");

    // Used on A: B no longer offers it, and posting B's form (loaded before) is refused.
    assert.doesNotMatch(await (await b.get(setupPath)).text(), /name="passwordConfirm"/);
    const again = await setupOnB({ email: "mallory@example.com", password: PASSWORD, passwordConfirm: PASSWORD });
    assert.notEqual(again.status, 303);
    assert.match(await again.text(), /invalid, expired or already used/);
    assert.deepEqual(
      (await db.select({ email: users.email }).from(users)).map((u) => u.email),
      ["first@example.com"],
    );
  });

  test("a session made on one replica is valid on the other; signing out on one ends it on both", async () => {
    const res = await a.signIn("first@example.com", PASSWORD);
    assert.equal(res.status, 303);
    const cookie = sessionCookie(res)!;
    assert.equal(await signedIn(a, cookie), true);
    assert.equal(await signedIn(b, cookie), true);

    const out = await b.submit("/", /Sign out/, {}, cookie);
    assert.equal(out.status, 303, "signed out on B");
    assert.match(out.headers.get("location") ?? "", /\/login/);
    assert.equal(await signedIn(a, cookie), false, "the session ended on A too");
    assert.equal(await signedIn(b, cookie), false);
  });

  test("the sign-in rate limit counts the attempts made on both replicas", async () => {
    // Five failures per e-mail in the window: three on A, two on B.
    for (const [r, i] of [
      [a, 1],
      [b, 2],
      [a, 3],
      [b, 4],
      [a, 5],
    ] as const) {
      const res = await r.signIn("first@example.com", `wrong ${i}`);
      assert.equal(res.status, 200, `failure ${i} on ${r.name} re-renders the form`);
      assert.match(await res.text(), /e-mail or password is wrong/);
    }
    // The sixth, with the right password, is refused on either replica.
    for (const r of [b, a]) {
      const res = await r.signIn("first@example.com", PASSWORD);
      assert.notEqual(res.status, 303, `${r.name} refused the sign-in`);
      assert.match(await res.text(), /Too many failed sign-ins/);
    }
  });

  test("an API key works on both replicas, and revoked on one it fails on both", async () => {
    const [user] = await db.select().from(users).where(eq(users.email, "first@example.com"));
    const { key, apiKey } = await createApiKey({ db, actor: actorFromUser(user!, { kind: "session" }), input: { name: "replicas" } });
    const me = (r: Replica) => fetch(`${r.base}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal((await me(a)).status, 200);
    assert.equal((await me(b)).status, 200);
    const revoked = await fetch(`${a.base}/api/v1/me/api-keys/${apiKey.id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${key}` },
    });
    assert.ok(revoked.ok, `revoked on A: ${revoked.status}`);
    assert.equal((await me(b)).status, 401);
    assert.equal((await me(a)).status, 401);
  });
});
