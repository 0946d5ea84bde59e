// One pass of the webhook delivery loop: claims the pending deliveries that are
// due, posts each (signed, with a timeout), and records the outcome. Claiming
// moves a delivery's nextAttemptAt past the attempt's lease in one statement
// (FOR UPDATE SKIP LOCKED), so no HTTP call runs inside a transaction, two
// portal processes never send the same delivery at once, and a process that
// dies mid-call leaves the delivery to be retried when the lease runs out.
// A 2xx answer delivers it; anything else schedules a retry with backoff, and
// the last allowed attempt marks it failed. Receivers must be idempotent (the
// body's `id` is the delivery's): a call that timed out may still have arrived.
import { webhookDeliveries, type WebhookDelivery } from "@sluice/db";
import { and, asc, eq, inArray, lte, sql } from "drizzle-orm";

import type { WebhookSettings } from "../../config";
import type { Database } from "../../db";
import { MAX_WEBHOOK_ATTEMPTS, retryDelaySeconds, SIGNATURE_HEADER, signPayload } from "../../webhooks/signature";

const LEASE_SECONDS = 60;
const TIMEOUT_MS = 10_000;

export interface DeliveryOutcome {
  id: string;
  state: WebhookDelivery["state"];
  status: number | null;
}

export async function deliverDueWebhooks(options: {
  db: Database;
  settings: WebhookSettings;
  limit?: number;
  fetch?: typeof fetch;
}): Promise<DeliveryOutcome[]> {
  const send = options.fetch ?? fetch;
  const claimed = await options.db.transaction(async (tx) => {
    const due = await tx
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.state, "pending"), lte(webhookDeliveries.nextAttemptAt, sql`now()`)))
      .orderBy(asc(webhookDeliveries.nextAttemptAt))
      .limit(options.limit ?? 20)
      .for("update", { skipLocked: true });
    if (due.length === 0) return [];
    return tx
      .update(webhookDeliveries)
      .set({ nextAttemptAt: sql`now() + make_interval(secs => ${LEASE_SECONDS})`, attempts: sql`${webhookDeliveries.attempts} + 1` })
      .where(
        inArray(
          webhookDeliveries.id,
          due.map((d) => d.id),
        ),
      )
      .returning();
  });

  const outcomes: DeliveryOutcome[] = [];
  for (const delivery of claimed) {
    const body = JSON.stringify(delivery.payload);
    let status: number | null = null;
    let error: string | null = null;
    try {
      const response = await send(delivery.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "Sluice-Webhook/1",
          "sluice-event": delivery.event,
          "sluice-delivery": delivery.id,
          [SIGNATURE_HEADER]: signPayload(options.settings.secret, Math.floor(Date.now() / 1000), body),
        },
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      status = response.status;
      await response.body?.cancel();
      if (status < 200 || status >= 300) error = `the receiver answered HTTP ${status}`;
    } catch (err) {
      error =
        (err as Error).name === "TimeoutError" ? `no answer within ${TIMEOUT_MS / 1000} s` : `${(err as Error).message}`.slice(0, 500);
    }
    const state: WebhookDelivery["state"] = error === null ? "delivered" : delivery.attempts >= MAX_WEBHOOK_ATTEMPTS ? "failed" : "pending";
    await options.db
      .update(webhookDeliveries)
      .set({
        state,
        lastAttemptAt: sql`now()`,
        lastStatus: status,
        lastError: error,
        deliveredAt: state === "delivered" ? sql`now()` : null,
        nextAttemptAt: state === "pending" ? sql`now() + make_interval(secs => ${retryDelaySeconds(delivery.attempts)})` : sql`now()`,
      })
      .where(eq(webhookDeliveries.id, delivery.id));
    outcomes.push({ id: delivery.id, state, status });
  }
  return outcomes;
}
