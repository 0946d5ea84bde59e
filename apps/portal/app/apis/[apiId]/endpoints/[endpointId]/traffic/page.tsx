import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { z } from "zod";

import { PageHeader } from "@/components/ui/page-header";
import { UsageView } from "@/components/usage/usage-view";
import { hasRole } from "@/lib/auth/actor";
import { pageActor } from "@/lib/auth/current-user";
import { getDb } from "@/lib/db";
import { getUsage } from "@/lib/domain/usage/get-usage";
import { endpointUsageScope } from "@/lib/domain/usage/usage-scope";

import { loadScopeOrDeny } from "../../../../../traffic/load-scope";
import { rangeParam } from "../../../../../traffic/range-param";

export const metadata: Metadata = { title: "Endpoint traffic · Sluice" };

export default async function EndpointTrafficPage({
  params,
  searchParams,
}: {
  params: Promise<{ apiId: string; endpointId: string }>;
  searchParams: Promise<{ range?: string }>;
}) {
  const { apiId, endpointId } = await params;
  const range = rangeParam((await searchParams).range);
  const actor = await pageActor("viewer", `/apis/${apiId}/endpoints/${endpointId}/traffic`);
  if (!z.uuid().safeParse(endpointId).success) notFound();
  const db = getDb();
  const scope = await loadScopeOrDeny(() => endpointUsageScope({ db, actor, endpointId }));
  // Page URLs nest endpoints under their API.
  if (scope.kind !== "endpoint" || scope.apiId !== apiId) notFound();
  const usage = await getUsage({ db, scope, range });
  return (
    <>
      <PageHeader
        breadcrumbs={[
          { href: "/apis", label: "Catalog" },
          { href: `/apis/${apiId}`, label: scope.apiName },
          { href: `/apis/${apiId}/endpoints/${endpointId}`, label: scope.path },
        ]}
        title={<span className="font-mono">Traffic of {scope.path}</span>}
        description="Every app that uses this endpoint."
      />
      <UsageView
        usage={usage}
        basePath={`/apis/${apiId}/endpoints/${endpointId}/traffic`}
        csvHref={`/api/v1/endpoints/${endpointId}/usage`}
        linkApps={hasRole(actor, "editor")}
      />
    </>
  );
}
