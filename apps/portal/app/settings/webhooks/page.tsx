import type { Metadata } from "next";

import { Badge } from "@/components/ui/badge";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { NextPageLink } from "@/components/ui/pagination";
import { Table, Td, Th } from "@/components/ui/table";
import { pageActor } from "@/lib/auth/current-user";
import { webhookSettings } from "@/lib/config";
import { getDb } from "@/lib/db";
import { listWebhookDeliveries } from "@/lib/domain/webhooks/list-webhook-deliveries";
import { AppError } from "@/lib/errors";
import { formatDateTime } from "@/lib/format";
import { loadOr404 } from "@/lib/load-or-404";
import { DEFAULT_PAGE_SIZE } from "@/lib/pagination";

export const metadata: Metadata = { title: "Webhook · Sluice" };

const tone = { pending: "amber", delivered: "teal", failed: "red" } as const;

/** The webhook's configuration (from the environment) and its delivery log. */
export default async function WebhooksPage({ searchParams }: { searchParams: Promise<{ cursor?: string }> }) {
  const { cursor } = await searchParams;
  const actor = await pageActor("admin", "/settings/webhooks");
  const configured = (() => {
    try {
      const settings = webhookSettings();
      return settings ? { url: settings.url } : null;
    } catch (err) {
      if (err instanceof AppError) return { error: err.message };
      throw err;
    }
  })();
  const page = await loadOr404(() => listWebhookDeliveries({ db: getDb(), actor, limit: DEFAULT_PAGE_SIZE, cursor }));
  return (
    <>
      <PageHeader
        title="Webhook"
        description="Access requests and their decisions are posted, signed with HMAC-SHA256 (header Sluice-Signature), to the URL the environment sets (SLUICE_WEBHOOK_URL, SLUICE_WEBHOOK_SECRET). Failed calls are retried with backoff for about an hour."
      />
      <p className="mb-6 text-sm" data-testid="webhook-config">
        {configured === null ? (
          "No webhook is configured."
        ) : "error" in configured ? (
          <span className="text-red-700">{configured.error}</span>
        ) : (
          <>
            Posting to <code>{configured.url}</code>.
          </>
        )}
      </p>
      {page.items.length === 0 ? (
        <EmptyState title="No deliveries yet">Each access request and decision made while a webhook is configured appears here.</EmptyState>
      ) : (
        <Table caption="Webhook deliveries">
          <thead>
            <tr>
              <Th>Event</Th>
              <Th>URL</Th>
              <Th>Created</Th>
              <Th>State</Th>
              <Th>Attempts</Th>
              <Th>Last attempt</Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {page.items.map((d) => (
              <tr key={d.id}>
                <Td>
                  <code className="text-xs">{d.event}</code>
                  <span className="block text-xs text-slate-500">{d.id}</span>
                </Td>
                <Td className="font-mono text-xs break-all">{d.url}</Td>
                <Td>{formatDateTime(d.createdAt)}</Td>
                <Td>
                  <Badge tone={tone[d.state]}>{d.state}</Badge>
                  {d.state === "pending" && d.attempts > 0 ? (
                    <span className="block text-xs text-slate-500">next try {formatDateTime(d.nextAttemptAt)}</span>
                  ) : null}
                </Td>
                <Td>{d.attempts}</Td>
                <Td className="text-xs">
                  {d.lastAttemptAt ? formatDateTime(d.lastAttemptAt) : "—"}
                  {d.lastStatus !== null ? <span className="block">HTTP {d.lastStatus}</span> : null}
                  {d.lastError ? <span className="block text-red-700">{d.lastError}</span> : null}
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <NextPageLink nextCursor={page.nextCursor} params={{ cursor }} basePath="/settings/webhooks" />
    </>
  );
}
