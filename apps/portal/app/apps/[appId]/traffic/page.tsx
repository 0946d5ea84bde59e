import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { z } from "zod";

import { PageHeader } from "@/components/ui/page-header";
import { UsageView } from "@/components/usage/usage-view";
import { hasRole } from "@/lib/auth/actor";
import { pageActor } from "@/lib/auth/current-user";
import { getDb } from "@/lib/db";
import { getUsage } from "@/lib/domain/usage/get-usage";
import { appUsageScope } from "@/lib/domain/usage/usage-scope";

import { loadScopeOrDeny } from "../../../traffic/load-scope";
import { rangeParam } from "../../../traffic/range-param";

export const metadata: Metadata = { title: "App traffic · Sluice" };

export default async function AppTrafficPage({
  params,
  searchParams,
}: {
  params: Promise<{ appId: string }>;
  searchParams: Promise<{ range?: string }>;
}) {
  const { appId } = await params;
  const range = rangeParam((await searchParams).range);
  const actor = await pageActor("viewer", `/apps/${appId}/traffic`);
  if (!z.uuid().safeParse(appId).success) notFound();
  const db = getDb();
  const scope = await loadScopeOrDeny(() => appUsageScope({ db, actor, appId }));
  if (scope.kind !== "app") notFound();
  const usage = await getUsage({ db, scope, range });
  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6">
      <PageHeader
        breadcrumbs={[
          { href: "/apps", label: "Apps" },
          { href: `/apps/${appId}`, label: scope.name },
        ]}
        title={`Traffic of ${scope.name}`}
        description="This app's connections and its traffic on every endpoint, including quota refusals."
      />
      {/* Endpoint pages' traffic belongs to API owners; an app owner sees their own numbers here. */}
      <UsageView
        usage={usage}
        basePath={`/apps/${appId}/traffic`}
        csvHref={`/api/v1/apps/${appId}/usage`}
        linkEndpoints={hasRole(actor, "editor")}
      />
    </div>
  );
}
