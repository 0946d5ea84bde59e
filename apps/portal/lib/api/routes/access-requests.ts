// Access requests: an app's side asks for an API or some of its endpoints; the
// API's owner, editors and admins decide in one inbox. Every route is open to
// every signed-in role and narrowed in the domain (lib/domain/access-requests):
// a request neither side of which is yours is 404, deciding one you may only
// see is 403.
import { z } from "zod";

import { approveAccessRequest } from "../../domain/access-requests/approve-access-request";
import { createAccessRequest } from "../../domain/access-requests/create-access-request";
import { getAccessRequest } from "../../domain/access-requests/get-access-request";
import { listAccessRequests, listAppAccessRequests } from "../../domain/access-requests/list-access-requests";
import { rejectAccessRequest } from "../../domain/access-requests/reject-access-request";
import { withdrawAccessRequest } from "../../domain/access-requests/withdraw-access-request";
import { pageQuery, pageSchema } from "../../pagination";
import {
  accessRequestFilters,
  accessRequestStateSchema,
  createAccessRequestInput,
  rejectAccessRequestInput,
} from "../../validation/access-requests";
import { defineRoute } from "../route";
import { nullableTimestamp, timestamp } from "../schemas";
import { grantSchema } from "./apps";

const appId = z.object({ appId: z.uuid("must be a UUID") });
const requestId = z.object({ requestId: z.uuid("must be a UUID") });

const accessRequestSchema = z
  .object({
    id: z.uuid(),
    appId: z.uuid(),
    appName: z.string(),
    apiId: z.uuid(),
    apiName: z.string(),
    apiVersion: z.string(),
    wholeApi: z.boolean().describe("true: every endpoint the API has when approved; false: the endpoints listed"),
    endpoints: z.array(z.object({ id: z.uuid(), path: z.string() })).describe("The endpoints asked for (empty for a whole-API request)"),
    operations: z.array(z.enum(["subscribe", "publish"])),
    justification: z.string(),
    planId: z.uuid().nullable().describe("The plan asked for; the approval's grants are under it"),
    planName: z.string().nullable(),
    state: accessRequestStateSchema,
    requestedBy: z.uuid().nullable(),
    requestedByEmail: z.string().nullable(),
    requestedAt: timestamp,
    autoApproved: z.boolean().describe("Approved by the portal as it was made, because its plan auto-approves (decidedBy is null)"),
    decidedBy: z.uuid().nullable().describe("Who approved, rejected or withdrew it"),
    decidedByEmail: z.string().nullable(),
    decidedAt: nullableTimestamp,
    reason: z.string().nullable().describe("The rejection's reason"),
  })
  .meta({ id: "AccessRequest" });

const approvalSchema = z
  .object({
    request: accessRequestSchema,
    grants: z.object({
      created: z.array(grantSchema).describe("Grants the approval added"),
      extended: z.array(grantSchema).describe("Grants of the same pattern that gained the operations asked for"),
      alreadyCovered: z.array(z.string()).describe("Patterns the app's grants already covered"),
    }),
  })
  .meta({ id: "AccessRequestApproval" });

export const accessRequestRoutes = [
  defineRoute({
    method: "GET",
    path: "/access-requests",
    operationId: "listAccessRequests",
    summary: "The deciders' inbox: access requests, newest first",
    description:
      "Editors and admins see every request, an API's owner the requests for the APIs they own, anyone else none. An app's own requests: GET /apps/{appId}/access-requests.",
    tag: "Access requests",
    auth: "viewer",
    query: pageQuery.extend(accessRequestFilters.shape),
    response: pageSchema(accessRequestSchema),
    handler: async ({ db, actor, query }) =>
      listAccessRequests({
        db,
        actor,
        filters: { state: query.state, apiId: query.apiId, appId: query.appId },
        limit: query.limit,
        cursor: query.cursor,
      }),
  }),
  defineRoute({
    method: "GET",
    path: "/access-requests/{requestId}",
    operationId: "getAccessRequest",
    summary: "Get an access request",
    description: "For the app's side (owner, editors, admins) and the API's owner; anyone else gets 404.",
    tag: "Access requests",
    auth: "viewer",
    params: requestId,
    response: accessRequestSchema,
    handler: async ({ db, actor, params }) => getAccessRequest({ db, actor, requestId: params.requestId }),
  }),
  defineRoute({
    method: "POST",
    path: "/access-requests/{requestId}/approve",
    operationId: "approveAccessRequest",
    summary: "Approve a pending access request, creating the app's grants",
    description:
      "The API's owner, editors and admins. In one transaction: one grant per endpoint for the requested operations it allows (an exact endpoint's path; /topic/* for a parameterised endpoint; for a whole-API request the endpoints the API has now), under the request's plan. Grants the app already has are kept (or gain missing operations); with a plan, only a grant under the same plan counts as covering, and a grant of the same pattern moves to the request's plan. A decided request is 409.",
    tag: "Access requests",
    auth: "viewer",
    params: requestId,
    response: approvalSchema,
    handler: async ({ db, actor, params }) => {
      const { grants } = await approveAccessRequest({ db, actor, requestId: params.requestId });
      return { request: await getAccessRequest({ db, actor, requestId: params.requestId }), grants };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/access-requests/{requestId}/reject",
    operationId: "rejectAccessRequest",
    summary: "Reject a pending access request with a reason",
    description: "The API's owner, editors and admins. The requester sees the reason. A decided request is 409.",
    tag: "Access requests",
    auth: "viewer",
    params: requestId,
    body: rejectAccessRequestInput,
    response: accessRequestSchema,
    handler: async ({ db, actor, params, body }) => {
      await rejectAccessRequest({ db, actor, requestId: params.requestId, input: body });
      return getAccessRequest({ db, actor, requestId: params.requestId });
    },
  }),
  defineRoute({
    method: "POST",
    path: "/access-requests/{requestId}/withdraw",
    operationId: "withdrawAccessRequest",
    summary: "Withdraw a pending access request",
    description: "The app's owner, editors and admins. A decided request is 409.",
    tag: "Access requests",
    auth: "viewer",
    params: requestId,
    response: accessRequestSchema,
    handler: async ({ db, actor, params }) => {
      await withdrawAccessRequest({ db, actor, requestId: params.requestId });
      return getAccessRequest({ db, actor, requestId: params.requestId });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/apps/{appId}/access-requests",
    operationId: "listAppAccessRequests",
    summary: "An app's access requests with their state, decider and reason, newest first",
    tag: "Access requests",
    auth: "viewer",
    params: appId,
    query: pageQuery,
    response: pageSchema(accessRequestSchema),
    handler: async ({ db, actor, params, query }) =>
      listAppAccessRequests({ db, actor, appId: params.appId, limit: query.limit, cursor: query.cursor }),
  }),
  defineRoute({
    method: "POST",
    path: "/apps/{appId}/access-requests",
    operationId: "createAccessRequest",
    summary: "Ask for access to an API or some of its endpoints for an app",
    description:
      "The app's owner (editors and admins for any app). Leave endpointIds out for the whole API. Each chosen endpoint must allow every operation asked for. When the API has plans, planId names one (422 otherwise); a plan with autoApprove has the request approved at once by the portal (state approved, decidedBy null, audited as system), grants under the plan included. A pending request of the app that overlaps this one (same endpoint, or the whole API) is 409.",
    tag: "Access requests",
    auth: "viewer",
    params: appId,
    body: createAccessRequestInput,
    status: 201,
    response: accessRequestSchema,
    handler: async ({ db, actor, params, body }) => {
      const request = await createAccessRequest({ db, actor, appId: params.appId, input: body });
      return getAccessRequest({ db, actor, requestId: request.id });
    },
  }),
];
