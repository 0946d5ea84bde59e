import type { Metadata } from "next";
import Link from "next/link";
import { z } from "zod";

import { Badge } from "@/components/ui/badge";
import { ButtonLink } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { pageActor } from "@/lib/auth/current-user";
import { getDb } from "@/lib/db";
import { getApi } from "@/lib/domain/apis/get-api";
import { listApps } from "@/lib/domain/apps/list-apps";
import { listEndpoints } from "@/lib/domain/endpoints/list-endpoints";
import { listPlans } from "@/lib/domain/plans/list-plans";
import { formatPlanLimits } from "@/lib/format";
import { loadOr404 } from "@/lib/load-or-404";
import { MAX_PAGE_SIZE } from "@/lib/pagination";

import { RequestAccessForm } from "../../../access-requests/access-request-forms";

export const metadata: Metadata = { title: "Request access · Sluice" };

/** An app's owner asks for access to this API (or, from an endpoint page, that endpoint preselected). */
export default async function RequestAccessPage({
  params,
  searchParams,
}: {
  params: Promise<{ apiId: string }>;
  searchParams: Promise<{ endpoint?: string | string[] }>;
}) {
  const { apiId } = await params;
  const { endpoint } = await searchParams;
  const actor = await pageActor("viewer", `/apis/${apiId}/request-access`);
  const db = getDb();
  const api = await loadOr404(() => getApi({ db, actor, apiId }));
  const plans = await listPlans({ db, actor, apiId });
  const endpoints = await listEndpoints({ db, actor, apiId, query: { limit: MAX_PAGE_SIZE } });
  // Your own apps: an editor may ask for any app through the API, but the form offers the apps you own.
  const apps = (await listApps({ db, actor, limit: MAX_PAGE_SIZE, ownOnly: true })).items;
  const wanted = (Array.isArray(endpoint) ? endpoint : endpoint ? [endpoint] : []).filter((id) => z.uuid().safeParse(id).success);
  const preselected = wanted.filter((id) => endpoints.items.some((e) => e.id === id));

  return (
    <>
      <PageHeader
        breadcrumbs={[
          { href: "/apis", label: "Catalog" },
          { href: `/apis/${api.id}`, label: `${api.name} v${api.version}` },
        ]}
        title={
          <span className="flex flex-wrap items-baseline gap-2">
            Request access to {api.name} <Badge tone="blue">v{api.version}</Badge>
          </span>
        }
        description={`${api.owner ? `The API's owner (${api.owner.email})` : "An editor"} or any editor decides; you see the decision on your app's page.`}
      />
      {apps.length === 0 ? (
        <EmptyState title="You have no app yet" action={<ButtonLink href="/apps/new">Create an app</ButtonLink>}>
          Access is granted to an app: create one, then come back here.
        </EmptyState>
      ) : endpoints.items.length === 0 ? (
        <EmptyState title="This API has no endpoints yet">There is nothing to ask for yet.</EmptyState>
      ) : (
        <div className="max-w-3xl rounded-lg border border-slate-200 p-5">
          <RequestAccessForm
            apiId={api.id}
            apps={apps.map((a) => ({ id: a.id, name: a.name }))}
            endpoints={endpoints.items.map((e) => ({ id: e.id, path: e.path, operations: e.operations }))}
            preselected={preselected}
            plans={plans.map((p) => ({
              id: p.id,
              name: p.name,
              description: p.description,
              limits: formatPlanLimits(p.limits),
              autoApprove: p.autoApprove,
            }))}
          />
        </div>
      )}
      <p className="mt-4 text-sm text-slate-600">
        <Link href={`/apis/${api.id}`} className="text-teal-800 underline">
          Back to the API
        </Link>
      </p>
    </>
  );
}
