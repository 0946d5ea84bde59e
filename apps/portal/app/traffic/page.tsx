import type { Metadata } from "next";
import Link from "next/link";

import { ButtonLink } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { UsageView } from "@/components/usage/usage-view";
import { hasRole } from "@/lib/auth/actor";
import { pageActor } from "@/lib/auth/current-user";
import { getDb } from "@/lib/db";
import { getUsage } from "@/lib/domain/usage/get-usage";
import { listOwnUsageScopes } from "@/lib/domain/usage/list-own-usage-scopes";
import { allUsageScope } from "@/lib/domain/usage/usage-scope";

import { rangeParam } from "./range-param";

export const metadata: Metadata = { title: "Traffic · Sluice" };

export default async function TrafficPage({ searchParams }: { searchParams: Promise<{ range?: string }> }) {
  const actor = await pageActor("viewer", "/traffic");
  const range = rangeParam((await searchParams).range);
  const db = getDb();

  if (!hasRole(actor, "editor")) {
    // Viewers see the traffic of what they own: their apps, and APIs they are the owner of.
    const own = await listOwnUsageScopes({ db, actor });
    return (
      <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6">
        <PageHeader title="Traffic" description="Usage of your apps and of the APIs you own, as the gateways report it." />
        {own.apps.length === 0 && own.apis.length === 0 ? (
          <EmptyState title="Nothing of yours to show">Create an app, or ask an editor to make you the owner of an API.</EmptyState>
        ) : (
          <div className="grid gap-8 sm:grid-cols-2">
            {[
              { heading: "Your apps", items: own.apps.map((a) => ({ href: `/apps/${a.id}/traffic`, label: a.name })) },
              { heading: "Your APIs", items: own.apis.map((a) => ({ href: `/apis/${a.id}/traffic`, label: `${a.name} v${a.version}` })) },
            ].map((group) => (
              <section key={group.heading}>
                <h2 className="mb-2 text-base font-semibold">{group.heading}</h2>
                {group.items.length === 0 ? (
                  <p className="text-sm text-slate-500">None.</p>
                ) : (
                  <ul className="space-y-1 text-sm">
                    {group.items.map((i) => (
                      <li key={i.href}>
                        <Link className="font-medium text-teal-800 hover:underline" href={i.href}>
                          {i.label}
                        </Link>
                      </li>
                    ))}
                  </ul>
                )}
              </section>
            ))}
          </div>
        )}
      </div>
    );
  }

  const usage = await getUsage({ db, scope: allUsageScope(actor), range });
  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6">
      <PageHeader
        title="Traffic"
        description="Every API and app, as the gateway nodes report it (every few seconds, aggregated per minute and per hour)."
        actions={
          <ButtonLink variant="secondary" href="/traffic/nodes">
            Gateway nodes
          </ButtonLink>
        }
      />
      <UsageView usage={usage} basePath="/traffic" csvHref="/api/v1/usage" linkApps linkEndpoints />
    </div>
  );
}
