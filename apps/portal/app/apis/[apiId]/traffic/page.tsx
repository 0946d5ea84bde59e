import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { z } from "zod";

import { PageHeader } from "@/components/ui/page-header";
import { UsageView } from "@/components/usage/usage-view";
import { hasRole } from "@/lib/auth/actor";
import { pageActor } from "@/lib/auth/current-user";
import { getDb } from "@/lib/db";
import { getUsage } from "@/lib/domain/usage/get-usage";
import { apiUsageScope } from "@/lib/domain/usage/usage-scope";

import { loadScopeOrDeny } from "../../../traffic/load-scope";
import { rangeParam } from "../../../traffic/range-param";

export const metadata: Metadata = { title: "API traffic · Sluice" };

export default async function ApiTrafficPage({
  params,
  searchParams,
}: {
  params: Promise<{ apiId: string }>;
  searchParams: Promise<{ range?: string }>;
}) {
  const { apiId } = await params;
  const range = rangeParam((await searchParams).range);
  const actor = await pageActor("viewer", `/apis/${apiId}/traffic`);
  if (!z.uuid().safeParse(apiId).success) notFound();
  const db = getDb();
  const scope = await loadScopeOrDeny(() => apiUsageScope({ db, actor, apiId }));
  if (scope.kind !== "api") notFound();
  const usage = await getUsage({ db, scope, range });
  const editor = hasRole(actor, "editor");
  return (
    <>
      <PageHeader
        breadcrumbs={[
          { href: "/apis", label: "Catalog" },
          { href: `/apis/${apiId}`, label: `${scope.name} v${scope.version}` },
        ]}
        title={`Traffic of ${scope.name}`}
        description="All its endpoints and every app that uses them."
      />
      <UsageView
        usage={usage}
        basePath={`/apis/${apiId}/traffic`}
        csvHref={`/api/v1/apis/${apiId}/usage`}
        linkApps={editor}
        linkEndpoints
      />
    </>
  );
}
