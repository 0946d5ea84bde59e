// Plans of an API: the limits an app's grants under a plan get on every
// gateway. Everyone signed in reads them (a requester picks one); the API's
// owner, editors and admins change them (403 for anyone else, checked in
// lib/domain/plans).
import { z } from "zod";

import { createPlan } from "../../domain/plans/create-plan";
import { deletePlan } from "../../domain/plans/delete-plan";
import { getPlan, listPlans } from "../../domain/plans/list-plans";
import { updatePlan } from "../../domain/plans/update-plan";
import { createPlanInput, planLimitsSchema, updatePlanInput } from "../../validation/plans";
import { defineRoute } from "../route";
import { timestamp, uuid } from "../schemas";

export const planSchema = z
  .object({
    id: z.uuid(),
    apiId: z.uuid(),
    name: z.string(),
    description: z.string(),
    limits: planLimitsSchema,
    autoApprove: z.boolean().describe("Access requests for this plan are approved as they are made"),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: "Plan" });

const apiIdParam = z.object({ apiId: uuid });
const planPath = z.object({ apiId: uuid, planId: uuid });

export const planRoutes = [
  defineRoute({
    method: "GET",
    path: "/apis/{apiId}/plans",
    operationId: "listPlans",
    summary: "List an API's plans",
    tag: "Plans",
    auth: "viewer",
    params: apiIdParam,
    response: z.object({ items: z.array(planSchema) }),
    handler: async ({ db, actor, params }) => ({ items: await listPlans({ db, actor, apiId: params.apiId }) }),
  }),
  defineRoute({
    method: "POST",
    path: "/apis/{apiId}/plans",
    operationId: "createPlan",
    summary: "Define a plan of an API",
    description: "The API's owner, editors and admins. A name the API already has (whatever the case) is 409.",
    tag: "Plans",
    auth: "viewer",
    params: apiIdParam,
    body: createPlanInput,
    status: 201,
    response: planSchema,
    handler: async ({ db, actor, params, body }) => (await createPlan({ db, actor, apiId: params.apiId, input: body }))!,
  }),
  defineRoute({
    method: "GET",
    path: "/apis/{apiId}/plans/{planId}",
    operationId: "getPlan",
    summary: "Get a plan",
    tag: "Plans",
    auth: "viewer",
    params: planPath,
    response: planSchema,
    handler: async ({ db, actor, params }) => getPlan({ db, actor, apiId: params.apiId, planId: params.planId }),
  }),
  defineRoute({
    method: "PATCH",
    path: "/apis/{apiId}/plans/{planId}",
    operationId: "updatePlan",
    summary: "Change a plan",
    description:
      "The API's owner, editors and admins. Omitted fields keep their value. Every app with a grant under the plan gets its new limits on every gateway.",
    tag: "Plans",
    auth: "viewer",
    params: planPath,
    body: updatePlanInput,
    response: planSchema,
    handler: async ({ db, actor, params, body }) =>
      (await updatePlan({ db, actor, apiId: params.apiId, planId: params.planId, input: body }))!,
  }),
  defineRoute({
    method: "DELETE",
    path: "/apis/{apiId}/plans/{planId}",
    operationId: "deletePlan",
    summary: "Delete a plan that is not in use",
    description:
      "The API's owner, editors and admins. A plan that grants are under, or that pending access requests ask for, is 409 naming them: move the grants to another plan (PATCH /apps/{appId}/grants/{grantId}) or decide the requests first. Deleting the API takes its plans off their grants.",
    tag: "Plans",
    auth: "viewer",
    params: planPath,
    response: null,
    handler: async ({ db, actor, params }) => {
      await deletePlan({ db, actor, apiId: params.apiId, planId: params.planId });
    },
  }),
];
