// Queues an outgoing webhook call in the caller's transaction (see
// webhook_deliveries in packages/db). Without a configured webhook it does
// nothing; the delivery loop (deliver-due-webhooks.ts) sends it.
import { randomUUID } from "node:crypto";

import { webhookDeliveries } from "@sluice/db";

import { webhookSettings } from "../../config";
import type { Tx } from "../../db";

export async function enqueueWebhook(tx: Tx, event: string, data: Record<string, unknown>): Promise<void> {
  const settings = webhookSettings();
  if (!settings) return;
  // The body names its own delivery id, so a receiver can drop a retry it already handled.
  const id = randomUUID();
  const occurredAt = new Date();
  const payload = JSON.parse(JSON.stringify({ id, event, occurredAt, data }));
  await tx.insert(webhookDeliveries).values({ id, event, url: settings.url, payload, createdAt: occurredAt });
}
