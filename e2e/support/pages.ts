import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import type { Page } from "@playwright/test";

import { createTopic } from "./kafka";

/** Who looks at a page: nobody signed in, the first admin, or an invited viewer. */
export type Visitor = "anonymous" | "admin" | "viewer";

export interface PortalPage {
  /** The App Router route, spelt as its folder under apps/portal/app ("/apis/[apiId]"). */
  route: string;
  /** Who the checks visit it as. */
  visitors: Visitor[];
  /** One of the main pages: screenshotted at desktop and phone width, checked for sideways scrolling on a phone. */
  main?: boolean;
  /** A route whose page only redirects (checked where it lands, not listed for visits). */
  redirectsTo?: string;
}

/**
 * Every page of the portal. The accessibility, keyboard and phone specs visit
 * these, and accessibility.spec.ts fails when apps/portal/app has a page.tsx that is
 * not listed here (or an entry whose page is gone): a NEW PAGE MUST BE ADDED
 * HERE, with a resolver below for any new [param] in its route.
 */
export const PORTAL_PAGES: PortalPage[] = [
  { route: "/", visitors: ["anonymous", "admin", "viewer"], main: true },
  { route: "/login", visitors: ["anonymous"], main: true },
  { route: "/api-reference", visitors: ["admin", "viewer"] },
  { route: "/setup/[token]", visitors: ["anonymous"] },
  { route: "/apis", visitors: ["admin", "viewer"], main: true },
  { route: "/apis/new", visitors: ["admin"] },
  { route: "/apis/[apiId]", visitors: ["admin", "viewer"], main: true },
  { route: "/apis/[apiId]/edit", visitors: ["admin"] },
  { route: "/apis/[apiId]/docs", visitors: ["admin", "viewer"], main: true },
  { route: "/apis/[apiId]/request-access", visitors: ["viewer"] },
  { route: "/apis/[apiId]/traffic", visitors: ["admin", "viewer"] },
  { route: "/apis/[apiId]/endpoints/new", visitors: ["admin"] },
  { route: "/apis/[apiId]/endpoints/[endpointId]", visitors: ["admin", "viewer"], main: true },
  { route: "/apis/[apiId]/endpoints/[endpointId]/edit", visitors: ["admin"] },
  { route: "/apis/[apiId]/endpoints/[endpointId]/traffic", visitors: ["admin", "viewer"] },
  { route: "/apps", visitors: ["admin", "viewer"], main: true },
  { route: "/apps/new", visitors: ["admin", "viewer"] },
  { route: "/apps/[appId]", visitors: ["admin", "viewer"], main: true },
  { route: "/apps/[appId]/traffic", visitors: ["admin", "viewer"] },
  { route: "/access-requests", visitors: ["admin", "viewer"] },
  { route: "/audit", visitors: ["admin"], main: true },
  { route: "/traffic", visitors: ["admin", "viewer"], main: true },
  { route: "/traffic/nodes", visitors: ["admin"] },
  { route: "/settings", visitors: [], redirectsTo: "/settings/api-keys" },
  { route: "/settings/account", visitors: ["admin", "viewer"] },
  { route: "/settings/api-keys", visitors: ["admin", "viewer"] },
  { route: "/settings/users", visitors: ["admin"], main: true },
  { route: "/settings/signing-keys", visitors: ["admin"] },
  { route: "/settings/webhooks", visitors: ["admin"] },
];

/**
 * Pages that are states rather than routes: Next renders them for any path.
 * `path` is visited as is.
 */
export const STATUS_PAGES: { name: string; path: string; visitors: Visitor[] }[] = [
  { name: "404 (no such page)", path: "/this-page-does-not-exist", visitors: ["anonymous", "admin"] },
  { name: "404 (no such API)", path: "/apis/00000000-0000-4000-8000-000000000000", visitors: ["admin"] },
  // The audit log needs an editor: a viewer gets the 403 page.
  { name: "403 (role too low)", path: "/audit", visitors: ["viewer"] },
  { name: "setup link already used or unknown", path: "/setup/not-a-real-setup-token", visitors: ["anonymous"] },
];

/** The routes apps/portal/app serves pages on, from its page.tsx files (route groups left out). */
export function appRoutes(): string[] {
  const appDir = fileURLToPath(new URL("../../apps/portal/app", import.meta.url));
  const routes: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      // api/ holds route handlers only; _private folders are not routes.
      if (entry.isDirectory() && !entry.name.startsWith("_") && full !== path.join(appDir, "api")) walk(full);
      else if (/^page\.(tsx|ts|jsx|js|mdx)$/.test(entry.name)) {
        const segments = path
          .relative(appDir, dir)
          .split(path.sep)
          .filter((s) => s && !/^\(.*\)$/.test(s));
        routes.push(`/${segments.join("/")}`);
      }
    }
  };
  walk(appDir);
  return routes.sort();
}

/**
 * Values for a route's [params], found the way a user would: from the links
 * the visitor's own pages show. Cached per page's context (one visitor).
 */
const resolvers: Record<string, (page: Page, known: Record<string, string>) => Promise<string>> = {
  apiId: (page) => firstIdLinkedFrom(page, "/apis", /^\/apis\/([0-9a-f-]{36})$/),
  endpointId: (page, known) =>
    firstIdLinkedFrom(page, `/apis/${known.apiId}`, new RegExp(`^/apis/${known.apiId}/endpoints/([0-9a-f-]{36})$`)),
  appId: (page) => firstIdLinkedFrom(page, "/apps", /^\/apps\/([0-9a-f-]{36})$/),
  // A setup link is one-time; tests that need a live one make an invitation (see STATUS_PAGES for a dead one).
  token: async () => {
    throw new Error("/setup/[token] is visited through an invitation link: see accessibility.spec.ts");
  },
};

async function firstIdLinkedFrom(page: Page, from: string, pattern: RegExp): Promise<string> {
  await page.goto(from);
  const hrefs = await page.locator("main a[href]").evaluateAll((links) => links.map((a) => a.getAttribute("href") ?? ""));
  const id = hrefs.map((h) => pattern.exec(h)?.[1]).find(Boolean);
  if (!id) throw new Error(`no link matching ${pattern} on ${from}: does the visitor have one to show?`);
  return id;
}

const cache = new WeakMap<Page, Record<string, string>>();

/**
 * The route with its [params] filled in for the visitor signed in on `page`;
 * `given` names values to use (e.g. what seedCatalog made) instead of looking.
 */
export async function resolveRoute(page: Page, route: string, given: Record<string, string> = {}): Promise<string> {
  const known = cache.get(page) ?? { ...given };
  cache.set(page, known);
  let resolved = route;
  for (const [, name] of route.matchAll(/\[(\w+)\]/g)) {
    const resolver = resolvers[name!];
    if (!resolver) throw new Error(`no resolver for [${name}] in ${route}: add one to e2e/support/pages.ts`);
    known[name!] ??= await resolver(page, known);
    resolved = resolved.replace(`[${name}]`, known[name!]!);
  }
  return resolved;
}

/** A file-system-safe name for a screenshot of `route`. */
export const screenshotName = (route: string) => (route === "/" ? "home" : route.slice(1).replaceAll("/", "_").replaceAll(/[[\]]/g, ""));

/**
 * An API with one endpoint on a fresh topic, made through the forms as an editor
 * would (the test stack starts with an empty catalog), and an app of the admin's
 * with a grant on it and a token, so the catalog, endpoint and app pages have content.
 */
export async function seedCatalog(admin: Page, stamp: number): Promise<{ apiId: string; endpointId: string; appId: string }> {
  const topic = `e2e-screens-${stamp}`;
  await createTopic(topic, 2);
  await admin.goto("/apis/new");
  await admin.getByLabel("Name").fill(`Screens ${stamp}`);
  await admin.getByLabel("Version").fill("1.0.0");
  await admin.getByLabel("Description").fill("Vehicle positions, one key per vehicle.");
  await admin.getByRole("button", { name: "Create API" }).click();
  await admin.waitForURL(/\/apis\/[0-9a-f-]{36}$/);
  const apiId = new URL(admin.url()).pathname.split("/")[2]!;
  await admin.getByRole("link", { name: "Add endpoint" }).click();
  await admin.getByLabel("Kafka topic").selectOption(topic);
  await admin.getByLabel("Key").fill("{vehicle}");
  await admin.getByRole("checkbox", { name: /^Subscribe/ }).check();
  await admin.getByRole("checkbox", { name: /^Publish/ }).check();
  await admin.getByLabel("Payload format").selectOption("json");
  await admin.getByRole("button", { name: "Create endpoint" }).click();
  await admin.waitForURL(/\/endpoints\/[0-9a-f-]{36}$/);
  const endpointId = new URL(admin.url()).pathname.split("/")[4]!;

  await admin.goto("/apps/new");
  await admin.getByLabel("Name").fill(`Screens app ${stamp}`);
  await admin.getByRole("button", { name: "Create app" }).click();
  await admin.waitForURL(/\/apps\/[0-9a-f-]{36}$/);
  const appId = new URL(admin.url()).pathname.split("/")[2]!;
  await admin.getByLabel("Endpoint pattern").fill(`/${topic}/*`);
  await admin.getByRole("checkbox", { name: "Subscribe", exact: true }).check();
  await admin.getByRole("button", { name: "Add grant" }).click();
  await admin.getByRole("table", { name: "Grants" }).getByText(`/${topic}/*`).waitFor();
  await admin.getByRole("checkbox", { name: `Subscribe /${topic}/*` }).check();
  await admin.getByRole("button", { name: "Mint token" }).click();
  await admin.getByTestId("new-token").waitFor();
  return { apiId, endpointId, appId };
}

/**
 * Where the screens spec leaves its screenshots for a reviewer (git-ignored;
 * packages/stack/src/test-runner.ts empties it before a run and prints it after).
 */
export const SCREENSHOT_DIR = fileURLToPath(new URL("../artifacts/screenshots", import.meta.url));
