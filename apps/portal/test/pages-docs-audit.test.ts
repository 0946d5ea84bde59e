// The server-rendered docs and audit pages: who may open them, and what they show
// before any script runs (the AsyncAPI renderer itself runs in the browser).
import assert from "node:assert/strict";
import { randomInt, randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { auditLog, endpoints, streamingApis } from "@sluice/db";
import { eq, inArray } from "drizzle-orm";

import { db, portalUrl, seedUser, sessionFor } from "./helpers";

const page = (path: string, cookie?: string) => fetch(`${portalUrl}${path}`, { headers: cookie ? { cookie } : {}, redirect: "manual" });

describe("docs page", () => {
  const run = randomUUID().slice(0, 8);
  const apiIds: string[] = [];
  let cookie: string;
  let apiId: string;
  let emptyId: string;

  before(async () => {
    cookie = (await sessionFor((await seedUser("viewer", "docs-page")).user.id)).cookie;
    const [api, empty] = await db
      .insert(streamingApis)
      .values([
        { name: `Docs page ${run}`, version: "1.0.0" },
        { name: `Docs page empty ${run}`, version: "1.0.0" },
      ])
      .returning();
    apiIds.push(api!.id, empty!.id);
    apiId = api!.id;
    emptyId = empty!.id;
    await db
      .insert(endpoints)
      .values({ apiId, path: `/docs-page-${run}/k`, topic: `docs-page-${run}`, key: "k", operations: ["subscribe"] });
  });

  after(async () => {
    await db.delete(streamingApis).where(inArray(streamingApis.id, apiIds));
  });

  test("a viewer sees the title, the download links and the docs container", async () => {
    const res = await page(`/apis/${apiId}/docs`, cookie);
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.match(html, new RegExp(`Docs page ${run} 1\\.0\\.0: documentation`));
    assert.match(html, new RegExp(`href="/api/v1/apis/${apiId}/asyncapi\\.yaml"[^>]*download`));
    assert.match(html, new RegExp(`href="/api/v1/apis/${apiId}/asyncapi\\.json"[^>]*download`));
    assert.match(html, /data-testid="asyncapi-docs"/);
    assert.match(html, new RegExp(`href="/apis/${apiId}"`), "breadcrumb back to the API");
  });

  test("an API without endpoints shows the empty state instead of the renderer", async () => {
    const html = await (await page(`/apis/${emptyId}/docs`, cookie)).text();
    assert.match(html, /No endpoints yet/);
    assert.doesNotMatch(html, /data-testid="asyncapi-docs"/);
  });

  test("unknown or malformed ids are 404; signed-out visitors are sent to sign in", async () => {
    assert.equal((await page(`/apis/${randomUUID()}/docs`, cookie)).status, 404);
    assert.equal((await page(`/apis/nope/docs`, cookie)).status, 404);
    const anonymous = await page(`/apis/${apiId}/docs`);
    assert.ok([303, 307].includes(anonymous.status), String(anonymous.status));
    assert.match(anonymous.headers.get("location") ?? "", /\/login\?next=/);
  });
});

describe("audit page", () => {
  const run = Array.from({ length: 10 }, () => String.fromCharCode(97 + randomInt(26))).join("");
  const entityType = `it_page_${run}`;
  let editorCookie: string;
  let viewerCookie: string;
  let entryId: number;

  before(async () => {
    editorCookie = (await sessionFor((await seedUser("editor", "audit-page")).user.id)).cookie;
    viewerCookie = (await sessionFor((await seedUser("viewer", "audit-page")).user.id)).cookie;
    const [row] = await db
      .insert(auditLog)
      .values({
        actor: `pager-${run}@test.sluice`,
        action: `${entityType}.update`,
        entityType,
        entityId: "e1",
        before: { colour: "red", size: 1 },
        after: { colour: "blue", size: 1 },
      })
      .returning();
    entryId = row!.id;
  });

  after(async () => {
    await db.delete(auditLog).where(eq(auditLog.entityType, entityType));
  });

  test("an editor finds an entry by filter, with its changed field marked", async () => {
    const res = await page(`/audit?entityType=${entityType}`, editorCookie);
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.equal(html.match(/data-testid="audit-entry"/g)?.length, 1);
    assert.match(html, new RegExp(`data-entry-id="${entryId}"`));
    assert.match(html, /data-field="colour" data-change="changed"/);
    assert.match(html, /data-field="size" data-change="unchanged"/);
  });

  test("no match shows the empty state; a bad filter names the field", async () => {
    const none = await (await page(`/audit?entityType=${entityType}&actor=nobody-${run}`, editorCookie)).text();
    assert.match(none, /No entries match these filters/);
    const bad = await (await page(`/audit?action=updated`, editorCookie)).text();
    assert.match(bad, /role="alert"[^>]*>Some filters are not valid: (<!-- -->)?action/);
    assert.match(bad, /data-testid="error-action"/);
  });

  test("datetime-local values are read as UTC", async () => {
    const html = await (await page(`/audit?entityType=${entityType}&from=2000-01-01T00:00`, editorCookie)).text();
    assert.match(html, new RegExp(`data-entry-id="${entryId}"`));
    const later = await (await page(`/audit?entityType=${entityType}&from=2999-01-01T00:00`, editorCookie)).text();
    assert.doesNotMatch(later, /data-testid="audit-entry"/);
  });

  test("viewers get 403", async () => {
    assert.equal((await page("/audit", viewerCookie)).status, 403);
  });
});
