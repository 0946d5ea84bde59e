// The webhook delivery log (admins only): what was sent where, and how it went.
import { WEBHOOK_DELIVERY_STATES } from "@sluice/db";
import { z } from "zod";

import { listWebhookDeliveries } from "../../domain/webhooks/list-webhook-deliveries";
import { pageQuery, pageSchema } from "../../pagination";
import { defineRoute } from "../route";
import { nullableTimestamp, timestamp } from "../schemas";

const deliverySchema = z
  .object({
    id: z.uuid().describe("Also the body's `id`: the same on every retry"),
    event: z.string().describe("access_request.created, .approved, .rejected or .withdrawn"),
    url: z.string(),
    payload: z.record(z.string(), z.unknown()).describe("The JSON body that is posted"),
    state: z.enum(WEBHOOK_DELIVERY_STATES),
    attempts: z.number().int(),
    nextAttemptAt: timestamp,
    lastAttemptAt: nullableTimestamp,
    lastStatus: z.number().int().nullable().describe("HTTP status of the last attempt; null when there was no answer"),
    lastError: z.string().nullable(),
    createdAt: timestamp,
    deliveredAt: nullableTimestamp,
  })
  .meta({ id: "WebhookDelivery" });

export const webhookRoutes = [
  defineRoute({
    method: "GET",
    path: "/webhook-deliveries",
    operationId: "listWebhookDeliveries",
    summary: "The outgoing webhook's delivery log, newest first (admins)",
    tag: "Webhook",
    auth: "admin",
    query: pageQuery.extend({
      state: z.enum(WEBHOOK_DELIVERY_STATES, { error: "must be pending, delivered or failed" }).optional(),
    }),
    response: pageSchema(deliverySchema),
    handler: async ({ db, actor, query }) =>
      listWebhookDeliveries({ db, actor, state: query.state, limit: query.limit, cursor: query.cursor }),
  }),
];
