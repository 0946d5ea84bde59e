// Editors and admins decide what an app may do: an endpoint pattern (exact path
// or `/…/*` wildcard, canonicalised as the gateway reads it), operations, and
// optionally a plan of the API the pattern reaches (plan-for-grant.ts), which
// puts the pattern under the plan's limits in the app's catalog record.
// Grants are patterns, not endpoint rows: a grant may name an endpoint that is
// defined later (grant-warnings.ts says so before it is saved). Tokens minted earlier keep what they carry until revoked.
import { appGrants, type AppGrant, type Plan } from "@sluice/db";

import type { AuthorizedActor } from "../../auth/actor";
import { recordChange } from "../../outbox/record-change";
import type { Database } from "../../db";
import type { TopicLookup } from "../../kafka/admin";
import { conflict, translateConstraint } from "../../errors";
import type { AddGrantInput } from "../../validation/apps";
import { currentAppRecords } from "../apps/current-app-records";
import { loadApp } from "../apps/load-app";
import { type GrantWarning, grantWarnings } from "./grant-warnings";
import { planForGrant } from "./plan-for-grant";

const GRANT_CONSTRAINTS = {
  app_grants_app_pattern_key: {
    field: "endpointPattern",
    message: "the app already has a grant for this pattern; remove it first to change its operations",
  },
  app_grants_pattern_format: { field: "endpointPattern", message: "is not a valid endpoint pattern" },
  app_grants_operations_valid: { field: "operations", message: "must be subscribe, publish or both" },
};

/** A grant as added (or, on a dry run, as it would be), with what it will not do yet. */
export type AddedGrant = AppGrant & { warnings: GrantWarning[] };

/** Thrown to roll a dry run back after every check and write ran; carries what would have been saved. */
class DryRun extends Error {
  constructor(readonly grants: AddedGrant[]) {
    super("dry run");
  }
}

/**
 * Adds grants to one app in one transaction: all or none (the catalog's "Grant
 * to an app…" adds one per endpoint of an API). `dryRun` runs every check and
 * write and then rolls back, so a caller sees exactly what saving would do.
 */
export async function addGrants(options: {
  db: Database;
  actor: AuthorizedActor<"editor">;
  appId: string;
  inputs: AddGrantInput[];
  dryRun?: boolean;
  topics?: TopicLookup;
}): Promise<AddedGrant[]> {
  // Kafka is asked before the transaction, so no row stays locked while it answers.
  const warnings = await Promise.all(
    options.inputs.map((input) => grantWarnings({ db: options.db, pattern: input.endpointPattern, topics: options.topics })),
  );
  try {
    return await options.db.transaction(async (tx) => {
      // Every plan before the app: the lock order of current-app-records.ts.
      const plans: (Plan | null)[] = [];
      for (const input of options.inputs) plans.push(input.planId ? await planForGrant(tx, input.planId, input.endpointPattern) : null);
      // FOR UPDATE, not share: a grant under a plan rewrites the app record, and two such changes must not interleave.
      const app = await loadApp({ db: tx, actor: options.actor, appId: options.appId, lock: "update" });
      if (app.kind === "console")
        throw conflict("appId", "the live console's app has no grants: each console token names its one endpoint");
      const added: AddedGrant[] = [];
      for (const [i, input] of options.inputs.entries()) {
        const operations = (["subscribe", "publish"] as const).filter((op) => input.operations.includes(op));
        const [grant] = await tx
          .insert(appGrants)
          .values({
            appId: app.id,
            endpointPattern: input.endpointPattern,
            operations,
            grantedBy: options.actor.userId || null,
            planId: plans[i]?.id ?? null,
          })
          .returning();
        added.push({ ...grant!, warnings: warnings[i]! });
      }
      // One audit entry per grant; the app's record (its plans' limits) once, after all of them, with the last.
      const catalog = plans.some(Boolean) ? await currentAppRecords(tx, [app.id]) : [];
      for (const [i, { warnings: _, ...grant }] of added.entries())
        await recordChange(tx, options.actor, {
          action: "grant.create",
          entityType: "app_grant",
          entityId: grant.id,
          after: grant,
          catalog: i === added.length - 1 ? catalog : [],
        });
      if (options.dryRun) throw new DryRun(added);
      return added;
    });
  } catch (err) {
    if (err instanceof DryRun) return err.grants;
    translateConstraint(err, GRANT_CONSTRAINTS);
  }
}

export async function addGrant(options: {
  db: Database;
  actor: AuthorizedActor<"editor">;
  appId: string;
  input: AddGrantInput;
  dryRun?: boolean;
  topics?: TopicLookup;
}): Promise<AddedGrant> {
  const [grant] = await addGrants({ ...options, inputs: [options.input] });
  return grant!;
}
