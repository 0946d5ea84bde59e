// The app records of apps whose limits (or anything else in their record) a
// change touches, built from the database as it is in the caller's transaction.
// Each app row is locked FOR UPDATE first, in id order: two changes to one app's
// grants or plans then build their records one after the other, so the record
// written last (the outbox is published in id order) holds every committed
// grant. Changes that name a plan lock the plan (share) before the app, and a
// plan edit locks the plan before its apps, so the lock order is always plan →
// app. Every caller that writes an app record goes through here: a record
// without the app's limits would lift them on every gateway.
import { appLimits, appRecord, apps, readPlanGrants, type CatalogRecord } from "@sluice/db";
import { asc, inArray } from "drizzle-orm";

import type { Tx } from "../../db";
import { invalid } from "../../errors";

/** The gateways' bounds on an app record (CATALOG.md): plans per app, patterns per plan. */
export const MAX_APP_PLANS = 64;
export const MAX_PLAN_PATTERNS = 1024;

export async function currentAppRecords(tx: Tx, appIds: string[]): Promise<CatalogRecord[]> {
  const ids = [...new Set(appIds)].sort();
  if (ids.length === 0) return [];
  const rows = await tx
    .select({ id: apps.id, name: apps.name, tokensNotBefore: apps.tokensNotBefore })
    .from(apps)
    .where(inArray(apps.id, ids))
    .orderBy(asc(apps.id))
    .for("update");
  const grants = await readPlanGrants(tx, ids);
  return rows.map((app) => {
    const limits = appLimits(grants.get(app.id) ?? []);
    // The gateway would reject the whole record (and fail closed on the app), so the change is refused here.
    if (limits.length > MAX_APP_PLANS) throw invalid("planId", `the app would have more than ${MAX_APP_PLANS} plans`);
    if (limits.some((l) => l.patterns.length > MAX_PLAN_PATTERNS))
      throw invalid("planId", `the app would have more than ${MAX_PLAN_PATTERNS} grants under one plan`);
    return appRecord(app, limits);
  });
}
