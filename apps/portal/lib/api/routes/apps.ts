// Apps and their grants. Viewers manage their own apps (anyone else's is 404);
// editors and admins manage every app and its grants.
import { z } from "zod";

import { createApp } from "../../domain/apps/create-app";
import { deleteApp } from "../../domain/apps/delete-app";
import { getApp } from "../../domain/apps/get-app";
import { listApps } from "../../domain/apps/list-apps";
import { updateApp } from "../../domain/apps/update-app";
import { addGrant } from "../../domain/grants/add-grant";
import { listGrants } from "../../domain/grants/list-grants";
import { removeGrant } from "../../domain/grants/remove-grant";
import { updateGrant } from "../../domain/grants/update-grant";
import { addGrantInput, createAppInput, updateAppInput, updateGrantInput } from "../../validation/apps";
import { pageQuery, pageSchema } from "../../pagination";
import { defineRoute } from "../route";
import { nullableTimestamp, timestamp } from "../schemas";
import { planSchema } from "./plans";

const appId = z.object({ appId: z.uuid("must be a UUID") });
const grantPath = z.object({ appId: z.uuid("must be a UUID"), grantId: z.uuid("must be a UUID") });

export const appSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string(),
    ownerId: z.uuid().nullable(),
    ownerEmail: z.string().nullable(),
    ownerName: z.string().nullable().describe("The owner's display name, when they have one"),
    tokensNotBefore: nullableTimestamp.describe("Tokens of this app issued before this instant are revoked"),
    kind: z.enum(["standard", "console"]).describe("`console`: the live console's app (no grants; its tokens come from Try it)"),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: "App" });

export const grantSchema = z
  .object({
    id: z.uuid(),
    appId: z.uuid(),
    endpointPattern: z.string().describe("Canonical endpoint path or wildcard (/prices/*)"),
    operations: z.array(z.enum(["subscribe", "publish"])),
    grantedBy: z.uuid().nullable(),
    planId: z.uuid().nullable().describe("The plan whose limits govern the pattern on the gateways; null: none"),
    createdAt: timestamp,
  })
  .meta({ id: "Grant" });

export const grantWithPlanSchema = grantSchema
  .extend({ plan: planSchema.extend({ apiName: z.string() }).nullable().describe("The grant's plan with its limits and API") })
  .meta({ id: "GrantWithPlan" });

const grantWarningSchema = z
  .object({
    code: z
      .enum(["no_endpoint", "no_topic", "topic_unchecked"])
      .describe(
        "no_endpoint: the pattern matches no endpoint of the catalog; no_topic: Kafka has no such topic; topic_unchecked: Kafka could not be asked",
      ),
    message: z.string(),
  })
  .meta({ id: "GrantWarning" });

export const addedGrantSchema = grantSchema
  .extend({
    warnings: z
      .array(grantWarningSchema)
      .describe("What the grant will not do yet; empty when it matches an endpoint on an existing topic. Warnings never refuse a grant."),
  })
  .meta({ id: "AddedGrant" });

export const appRoutes = [
  defineRoute({
    method: "GET",
    path: "/apps",
    operationId: "listApps",
    summary: "List apps (viewers: their own; editors and admins: all)",
    tag: "Apps",
    auth: "viewer",
    query: pageQuery.extend({
      q: z.string().max(100, "must be at most 100 characters").optional().describe("Search name and description"),
    }),
    response: pageSchema(appSchema),
    handler: async ({ db, actor, query }) => listApps({ db, actor, q: query.q, limit: query.limit, cursor: query.cursor }),
  }),
  defineRoute({
    method: "POST",
    path: "/apps",
    operationId: "createApp",
    summary: "Create an app",
    description: "Any signed-in user creates apps they own; editors and admins may set another owner.",
    tag: "Apps",
    auth: "viewer",
    body: createAppInput,
    status: 201,
    response: appSchema,
    handler: async ({ db, actor, body }) => {
      const app = await createApp({ db, actor, input: body });
      return getApp({ db, actor, appId: app!.id });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/apps/{appId}",
    operationId: "getApp",
    summary: "Get an app",
    tag: "Apps",
    auth: "viewer",
    params: appId,
    response: appSchema,
    handler: async ({ db, actor, params }) => getApp({ db, actor, appId: params.appId }),
  }),
  defineRoute({
    method: "PATCH",
    path: "/apps/{appId}",
    operationId: "updateApp",
    summary: "Change an app's name, description or owner",
    tag: "Apps",
    auth: "viewer",
    params: appId,
    body: updateAppInput,
    response: appSchema,
    handler: async ({ db, actor, params, body }) => {
      await updateApp({ db, actor, appId: params.appId, input: body });
      return getApp({ db, actor, appId: params.appId });
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/apps/{appId}",
    operationId: "deleteApp",
    summary: "Delete an app",
    description: "Deletes its grants and token records; every gateway treats the deleted app's tokens as revoked.",
    tag: "Apps",
    auth: "viewer",
    params: appId,
    response: null,
    handler: async ({ db, actor, params }) => {
      await deleteApp({ db, actor, appId: params.appId });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/apps/{appId}/grants",
    operationId: "listGrants",
    summary: "List an app's grants",
    tag: "Apps",
    auth: "viewer",
    params: appId,
    response: z.object({ items: z.array(grantWithPlanSchema) }),
    handler: async ({ db, actor, params }) => ({ items: await listGrants({ db, actor, appId: params.appId }) }),
  }),
  defineRoute({
    method: "POST",
    path: "/apps/{appId}/grants",
    operationId: "addGrant",
    summary: "Grant an app an endpoint pattern",
    description:
      "An endpoint path (/orders/eu), a parameterised path as the catalog shows it (/prices/{symbol}, stored as /prices/*) or a wildcard ending in /* (/prices/*, /*), with subscribe and/or publish. Tokens of the app can only carry what its grants cover. planId puts the pattern under a plan's limits: the plan's API must be the only one whose endpoints the pattern reaches (422 naming planId otherwise). The answer lists `warnings` when the pattern matches no endpoint or its topic is not in Kafka; they never refuse the grant. To see them before saving, send `?dryRun=true`: every check runs and the answer (200) is the grant as it would be, but nothing is saved.",
    tag: "Apps",
    auth: "editor",
    params: appId,
    query: z.object({
      dryRun: z
        .enum(["true", "false"], { error: "must be true or false" })
        .optional()
        .describe("true: check and answer 200 with the grant and its warnings without saving it"),
    }),
    body: addGrantInput,
    status: 201,
    otherStatuses: [200],
    response: addedGrantSchema,
    handler: async ({ db, actor, params, query, body }) => {
      const dryRun = query.dryRun === "true";
      const grant = await addGrant({ db, actor, appId: params.appId, input: body, dryRun });
      if (!dryRun) return grant;
      return new Response(JSON.stringify(grant), {
        status: 200,
        headers: { "content-type": "application/json", "cache-control": "no-store" },
      });
    },
  }),
  defineRoute({
    method: "PATCH",
    path: "/apps/{appId}/grants/{grantId}",
    operationId: "updateGrant",
    summary: "Move a grant to another plan, or to none",
    description:
      "The app's record goes to the gateways with its new limits. The plan must be of the API the pattern reaches (422 naming planId).",
    tag: "Apps",
    auth: "editor",
    params: grantPath,
    body: updateGrantInput,
    response: grantSchema,
    handler: async ({ db, actor, params, body }) => updateGrant({ db, actor, appId: params.appId, grantId: params.grantId, input: body }),
  }),
  defineRoute({
    method: "DELETE",
    path: "/apps/{appId}/grants/{grantId}",
    operationId: "removeGrant",
    summary: "Remove a grant",
    description: "New tokens can no longer ask for it; tokens already minted keep their permissions until they expire or are revoked.",
    tag: "Apps",
    auth: "editor",
    params: grantPath,
    response: null,
    handler: async ({ db, actor, params }) => {
      await removeGrant({ db, actor, appId: params.appId, grantId: params.grantId });
    },
  }),
];
