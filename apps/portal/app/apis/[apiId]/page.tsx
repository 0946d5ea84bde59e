import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";

import { MarkdownText } from "@/components/markdown";
import { ClientCodeSection } from "@/components/client-code/client-code-section";
import { Badge } from "@/components/ui/badge";
import { ButtonLink } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { NextPageLink } from "@/components/ui/pagination";
import { Table, Td, Th } from "@/components/ui/table";
import { hasRole, tryAuthorize } from "@/lib/auth/actor";
import { pageActor } from "@/lib/auth/current-user";
import { getDb } from "@/lib/db";
import { getApi } from "@/lib/domain/apis/get-api";
import { listEndpoints } from "@/lib/domain/endpoints/list-endpoints";
import { listGrantChoices } from "@/lib/domain/grants/list-grant-choices";
import { listGrantableApps } from "@/lib/domain/grants/list-grantable-apps";
import { listPlans } from "@/lib/domain/plans/list-plans";
import { plansInUse, type PlanUse } from "@/lib/domain/plans/plans-in-use";
import { canManagePlans } from "@/lib/domain/plans/plan-view";
import { canSeeApiUsage } from "@/lib/domain/usage/usage-scope";
import { AppError } from "@/lib/errors";
import { formatDateTime, formatPlanLimits } from "@/lib/format";
import { listEndpointsQuery } from "@/lib/validation/endpoints";
import { parseInput } from "@/lib/validation/parse";

import { DeleteButton } from "../delete-button";
import { GrantToApp } from "../grant-to-app";
import { DeletePlanButton, PlanForm } from "../plan-forms";
import { loadOr404 } from "@/lib/load-or-404";

type Params = { apiId: string };
type Search = { q?: string; cursor?: string };

export const metadata: Metadata = { title: "API · Sluice" };

export default async function ApiPage({ params, searchParams }: { params: Promise<Params>; searchParams: Promise<Search> }) {
  const { apiId } = await params;
  const search = await searchParams;
  const actor = await pageActor("viewer", `/apis/${apiId}`);
  const db = getDb();
  const api = await loadOr404(() => getApi({ db, actor, apiId }));
  const query = { q: search.q || undefined, cursor: search.cursor || undefined, limit: 50 };
  const page = await (async () => listEndpoints({ db, actor, apiId, query: parseInput(listEndpointsQuery, query) }))().catch((err) => {
    if (err instanceof AppError && err.status === 422) return { items: [], nextCursor: null, error: err.message };
    if (err instanceof AppError && err.status === 404) notFound();
    throw err;
  });
  const canEdit = hasRole(actor, "editor");
  const plans = await listPlans({ db, actor, apiId: api.id });
  const plansEditable = canManagePlans(actor, { ownerId: api.owner?.id ?? null });
  // "Grant to an app…" offers every endpoint of the API, not only the page shown.
  const editor = tryAuthorize(actor, "editor");
  const grantable = editor
    ? { apps: await listGrantableApps({ db, actor: editor }), endpoints: await listGrantChoices({ db, actor: editor, apiId: api.id }) }
    : null;
  const planUses = plansEditable ? await plansInUse({ db, apiId: api.id }) : new Map();

  return (
    <>
      <PageHeader
        breadcrumbs={[{ href: "/apis", label: "Catalog" }]}
        title={
          <span className="flex flex-wrap items-baseline gap-2">
            {api.name} <Badge tone="blue">v{api.version}</Badge>
          </span>
        }
        description={api.description ? <MarkdownText source={api.description} /> : undefined}
        actions={
          <>
            <ButtonLink variant="secondary" href={`/apis/${api.id}/docs`}>
              AsyncAPI docs
            </ButtonLink>
            <ButtonLink href={`/apis/${api.id}/request-access`}>Request access</ButtonLink>
            {grantable ? <GrantToApp apiId={api.id} apps={grantable.apps} endpoints={grantable.endpoints} plans={plans} /> : null}
            {canEdit || api.owner?.id === actor.userId ? (
              <ButtonLink variant="secondary" href={`/access-requests?apiId=${api.id}`}>
                Access requests
              </ButtonLink>
            ) : null}
            {canSeeApiUsage(actor, api) ? (
              <ButtonLink variant="secondary" href={`/apis/${api.id}/traffic`}>
                Traffic
              </ButtonLink>
            ) : null}
            {canEdit ? (
              <>
                <ButtonLink variant="secondary" href={`/apis/${api.id}/edit`}>
                  Edit API
                </ButtonLink>
                <DeleteButton
                  kind="api"
                  apiId={api.id}
                  label="Delete API"
                  confirmText={`Delete the API "${api.name}" v${api.version} and its ${api.endpointCount} endpoint(s)? Clients subscribed to them are disconnected. This cannot be undone.`}
                />
              </>
            ) : null}
          </>
        }
      />

      <dl className="mb-8 grid gap-4 text-sm sm:grid-cols-4">
        <div>
          <dt className="text-slate-500">Endpoints</dt>
          <dd className="font-medium" data-testid="api-endpoint-count">
            {api.endpointCount}
          </dd>
        </div>
        <div>
          <dt className="text-slate-500">Owner</dt>
          <dd className="font-medium">{api.owner ? api.owner.displayName || api.owner.email : "nobody"}</dd>
        </div>
        <div>
          <dt className="text-slate-500">Tags</dt>
          <dd className="flex flex-wrap gap-1">
            {api.tags.length ? (
              api.tags.map((t) => (
                <Link key={t} href={`/apis?tag=${encodeURIComponent(t)}`} className="rounded hover:opacity-80">
                  <Badge>{t}</Badge>
                </Link>
              ))
            ) : (
              <span className="text-slate-500">none</span>
            )}
          </dd>
        </div>
        <div>
          <dt className="text-slate-500">Updated</dt>
          <dd className="font-medium">{formatDateTime(api.updatedAt)}</dd>
        </div>
      </dl>

      <section aria-labelledby="endpoints-heading">
        <div className="mb-3 flex flex-wrap items-end justify-between gap-3">
          <h2 id="endpoints-heading" className="text-lg font-semibold">
            Endpoints
          </h2>
          <div className="flex flex-wrap items-end gap-3">
            <form role="search" method="get" className="flex items-end gap-2">
              <label htmlFor="endpoint-q" className="sr-only">
                Search endpoints
              </label>
              <input
                id="endpoint-q"
                type="search"
                name="q"
                defaultValue={query.q}
                placeholder="Search path or description"
                className="block w-56 rounded-md border border-slate-300 px-3 py-2 text-sm shadow-sm focus:border-teal-600"
              />
              <button type="submit" className="rounded-md border border-slate-300 bg-white px-3 py-2 text-sm font-medium hover:bg-slate-50">
                Search
              </button>
            </form>
            {canEdit ? <ButtonLink href={`/apis/${api.id}/endpoints/new`}>Add endpoint</ButtonLink> : null}
          </div>
        </div>
        {"error" in page && page.error ? (
          <p role="alert" className="mb-3 text-sm text-red-700">
            {page.error}
          </p>
        ) : null}
        {page.items.length === 0 ? (
          query.q ? (
            <EmptyState
              title="No endpoints match"
              action={
                <ButtonLink variant="secondary" href={`/apis/${api.id}`}>
                  Show all endpoints
                </ButtonLink>
              }
            >
              No endpoint of this API has “{query.q}” in its path or description.
            </EmptyState>
          ) : (
            <EmptyState
              title="No endpoints yet"
              action={canEdit ? <ButtonLink href={`/apis/${api.id}/endpoints/new`}>Add the first endpoint</ButtonLink> : null}
            >
              An endpoint exposes one key of a Kafka topic (<code>/orders/customer-42</code>) or every key (
              <code>{"/orders/{customerId}"}</code>).
            </EmptyState>
          )
        ) : (
          <Table caption={`Endpoints of ${api.name}`}>
            <thead>
              <tr>
                <Th>Path</Th>
                <Th>Operations</Th>
                <Th>Format</Th>
                <Th className="hidden md:table-cell">Description</Th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {page.items.map((e) => (
                <tr key={e.id}>
                  <Td>
                    <Link
                      href={`/apis/${api.id}/endpoints/${e.id}`}
                      className="font-mono text-sm font-medium break-all text-teal-800 hover:underline"
                    >
                      {e.path}
                    </Link>
                  </Td>
                  <Td>
                    <span className="flex flex-wrap gap-1">
                      {e.operations.map((op) => (
                        <Badge key={op} tone={op === "publish" ? "amber" : "teal"}>
                          {op}
                        </Badge>
                      ))}
                    </span>
                  </Td>
                  <Td>
                    {e.payloadFormat}
                    {e.hasSchema ? <span className="text-slate-500"> + schema</span> : null}
                  </Td>
                  <Td className="hidden max-w-md truncate text-slate-600 md:table-cell">
                    <MarkdownText source={e.description} inline />
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
        <NextPageLink nextCursor={page.nextCursor} params={{ q: query.q, cursor: query.cursor }} basePath={`/apis/${api.id}`} />
      </section>

      <section aria-labelledby="plans-heading" className="mt-10">
        <h2 id="plans-heading" className="mb-1 text-lg font-semibold">
          Plans
        </h2>
        <p className="mb-4 text-sm text-slate-600">
          What an app may do under each plan, on every gateway. An access request names a plan; its grants are under it.
          {plansEditable ? " The API's owner, editors and admins define them." : ""}
        </p>
        {plans.length === 0 ? (
          <EmptyState title="No plans">
            Access to this API comes without limits.
            {plansEditable
              ? " Define one below to cap what an app may do under it (connections, messages per second); access requests then name a plan."
              : ""}
          </EmptyState>
        ) : (
          <Table caption={`Plans of ${api.name}`}>
            <thead>
              <tr>
                <Th>Plan</Th>
                <Th>Limits</Th>
                <Th>Approval</Th>
                {plansEditable ? (
                  <Th>
                    <span className="sr-only">Actions</span>
                  </Th>
                ) : null}
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {plans.map((p) => (
                <tr key={p.id} data-testid="plan-row">
                  <Td>
                    <span className="font-medium">{p.name}</span>
                    {p.description ? <span className="block text-xs text-slate-500">{p.description}</span> : null}
                  </Td>
                  <Td className="text-sm">{formatPlanLimits(p.limits)}</Td>
                  <Td>
                    {p.autoApprove ? <Badge tone="teal">automatic</Badge> : <span className="text-sm text-slate-600">by a decider</span>}
                  </Td>
                  {plansEditable ? (
                    <Td className="text-right align-top">
                      <div className="flex flex-col items-end gap-2">
                        <details className="w-full max-w-xl text-left">
                          <summary className="cursor-pointer text-sm text-teal-800">Edit</summary>
                          <div className="mt-2 rounded-lg border border-slate-200 p-4">
                            <PlanForm apiId={api.id} plan={p} />
                          </div>
                        </details>
                        {/* Delete only where it would delete: deletePlan refuses a plan in use. */}
                        {planUses.has(p.id) ? (
                          <span className="text-xs text-slate-500" data-testid="plan-in-use">
                            {planInUseText(planUses.get(p.id)!)}
                          </span>
                        ) : (
                          <DeletePlanButton apiId={api.id} planId={p.id} name={p.name} />
                        )}
                      </div>
                    </Td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </Table>
        )}
        {plansEditable ? (
          <details className="mt-4 rounded-lg border border-slate-200 p-5">
            <summary className="cursor-pointer text-base font-semibold">Add a plan</summary>
            <div className="mt-3">
              <PlanForm apiId={api.id} />
            </div>
          </details>
        ) : null}
      </section>

      <ClientCodeSection actor={actor} apiId={api.id} />
    </>
  );
}

function planInUseText(use: PlanUse): string {
  const parts = [
    use.grants ? `${use.grants} grant${use.grants === 1 ? "" : "s"}` : "",
    use.pendingRequests ? `${use.pendingRequests} pending request${use.pendingRequests === 1 ? "" : "s"}` : "",
  ].filter(Boolean);
  return `In use by ${parts.join(" and ")}: move or decide them to delete the plan`;
}
