// Editors and admins decide what an app may do: an endpoint pattern (exact path
// or `/…/*` wildcard, canonicalised as the gateway reads it), operations, and
// optionally a plan of the API the pattern reaches (plan-for-grant.ts), which
// puts the pattern under the plan's limits in the app's catalog record.
// Grants are patterns, not endpoint rows: a grant may name an endpoint that is
// defined later. Tokens minted earlier keep what they carry until revoked.
import { appGrants } from "@sluice/db";

import type { AuthorizedActor } from "../../auth/actor";
import { recordChange } from "../../outbox/record-change";
import type { Database } from "../../db";
import { conflict, translateConstraint } from "../../errors";
import type { AddGrantInput } from "../../validation/apps";
import { currentAppRecords } from "../apps/current-app-records";
import { loadApp } from "../apps/load-app";
import { planForGrant } from "./plan-for-grant";

const GRANT_CONSTRAINTS = {
  app_grants_app_pattern_key: {
    field: "endpointPattern",
    message: "the app already has a grant for this pattern; remove it first to change its operations",
  },
  app_grants_pattern_format: { field: "endpointPattern", message: "is not a valid endpoint pattern" },
  app_grants_operations_valid: { field: "operations", message: "must be subscribe, publish or both" },
};

export async function addGrant(options: { db: Database; actor: AuthorizedActor<"editor">; appId: string; input: AddGrantInput }) {
  const { input } = options;
  try {
    return await options.db.transaction(async (tx) => {
      // The plan before the app: the lock order of current-app-records.ts.
      const plan = input.planId ? await planForGrant(tx, input.planId, input.endpointPattern) : null;
      // FOR UPDATE, not share: a grant under a plan rewrites the app record, and two such changes must not interleave.
      const app = await loadApp({ db: tx, actor: options.actor, appId: options.appId, lock: "update" });
      if (app.kind === "console")
        throw conflict("appId", "the live console's app has no grants: each console token names its one endpoint");
      const operations = (["subscribe", "publish"] as const).filter((op) => input.operations.includes(op));
      const [grant] = await tx
        .insert(appGrants)
        .values({
          appId: app.id,
          endpointPattern: input.endpointPattern,
          operations,
          grantedBy: options.actor.userId || null,
          planId: plan?.id ?? null,
        })
        .returning();
      await recordChange(tx, options.actor, {
        action: "grant.create",
        entityType: "app_grant",
        entityId: grant!.id,
        after: grant,
        catalog: plan ? await currentAppRecords(tx, [app.id]) : [],
      });
      return grant!;
    });
  } catch (err) {
    translateConstraint(err, GRANT_CONSTRAINTS);
  }
}
