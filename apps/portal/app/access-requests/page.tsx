import type { Metadata } from "next";
import Link from "next/link";

import { ButtonLink } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { NextPageLink } from "@/components/ui/pagination";
import { hasRole } from "@/lib/auth/actor";
import { pageActor } from "@/lib/auth/current-user";
import { getDb } from "@/lib/db";
import { listAccessRequests } from "@/lib/domain/access-requests/list-access-requests";
import { loadOr404 } from "@/lib/load-or-404";
import { DEFAULT_PAGE_SIZE } from "@/lib/pagination";
import { accessRequestFilters } from "@/lib/validation/access-requests";
import { parseInput } from "@/lib/validation/parse";

import { DecisionForms } from "./access-request-forms";
import { AccessRequestTable } from "./request-table";

export const metadata: Metadata = { title: "Access requests · Sluice" };

const TABS = ["pending", "approved", "rejected", "withdrawn", "all"] as const;

/** The deciders' inbox: requests for the APIs the user owns, or every request for editors and admins. */
export default async function AccessRequestsPage({
  searchParams,
}: {
  searchParams: Promise<{ state?: string; apiId?: string; cursor?: string }>;
}) {
  const search = await searchParams;
  const actor = await pageActor("viewer", "/access-requests");
  const tab = TABS.find((t) => t === search.state) ?? "pending";
  const filters = await loadOr404(async () =>
    parseInput(accessRequestFilters, { state: tab === "all" ? undefined : tab, apiId: search.apiId || undefined }),
  );
  const db = getDb();
  const page = await loadOr404(() => listAccessRequests({ db, actor, filters, limit: DEFAULT_PAGE_SIZE, cursor: search.cursor }));
  const decider = hasRole(actor, "editor");

  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6">
      <PageHeader
        title="Access requests"
        description={
          decider
            ? "Requests of apps for access to any API. Approving creates the app's grants at once."
            : "Requests for the APIs you own. Approving creates the app's grants at once. Your own apps' requests are on each app's page."
        }
      />
      <nav aria-label="Filter by state" className="mb-4 flex flex-wrap gap-2 text-sm">
        {TABS.map((t) => (
          <Link
            key={t}
            href={`/access-requests?state=${t}${filters.apiId ? `&apiId=${filters.apiId}` : ""}`}
            aria-current={t === tab ? "page" : undefined}
            className={`rounded-md px-3 py-1.5 font-medium ${t === tab ? "bg-teal-700 text-white" : "border border-slate-300 bg-white hover:bg-slate-50"}`}
          >
            {t}
          </Link>
        ))}
        {filters.apiId ? (
          <Link href={`/access-requests?state=${tab}`} className="px-3 py-1.5 text-teal-800 underline">
            Show every API
          </Link>
        ) : null}
      </nav>
      {page.items.length === 0 ? (
        <EmptyState
          title={tab === "pending" ? "Nothing waits for a decision" : `No ${tab === "all" ? "" : `${tab} `}requests`}
          action={
            <ButtonLink variant="secondary" href="/apps">
              Your apps
            </ButtonLink>
          }
        >
          {tab === "pending"
            ? "When an app's owner asks for access to an API (from its page in the catalog), the request waits here for a decision."
            : decider
              ? "Requests of apps for access to an API appear here."
              : "Requests for the APIs you own appear here."}{" "}
          Your own apps&apos; requests are on each app&apos;s page.
        </EmptyState>
      ) : (
        <AccessRequestTable
          caption="Access requests"
          requests={page.items}
          show="app"
          actions={(r) => (r.state === "pending" ? <DecisionForms requestId={r.id} /> : null)}
        />
      )}
      <NextPageLink
        nextCursor={page.nextCursor}
        params={{ state: tab, apiId: filters.apiId, cursor: search.cursor }}
        basePath="/access-requests"
      />
    </div>
  );
}
