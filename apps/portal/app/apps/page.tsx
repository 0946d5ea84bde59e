import type { Metadata } from "next";
import Link from "next/link";

import { Badge } from "@/components/ui/badge";
import { ButtonLink } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { NextPageLink } from "@/components/ui/pagination";
import { Table, Td, Th } from "@/components/ui/table";
import { DEFAULT_PAGE_SIZE } from "@/lib/pagination";
import { hasRole } from "@/lib/auth/actor";
import { pageActor } from "@/lib/auth/current-user";
import { getDb } from "@/lib/db";
import { listApps } from "@/lib/domain/apps/list-apps";
import { AppError } from "@/lib/errors";
import { formatDateTime, formatPerson } from "@/lib/format";

export const metadata: Metadata = { title: "Apps · Sluice" };

type AppRow = Awaited<ReturnType<typeof listApps>>["items"][number];

export default async function AppsPage({ searchParams }: { searchParams: Promise<{ q?: string; cursor?: string }> }) {
  const actor = await pageActor("viewer", "/apps");
  const { q, cursor } = await searchParams;
  const db = getDb();
  const search = q?.slice(0, 100);
  const all = hasRole(actor, "editor");
  // The live console's app is the portal's own: listed apart, below the apps people made.
  const [page, systemApps] = await Promise.all([
    listApps({ db, actor, q: search, limit: DEFAULT_PAGE_SIZE, cursor, kind: "standard" }).catch((err) => {
      if (err instanceof AppError) return { items: [], nextCursor: null };
      throw err;
    }),
    all && !cursor ? listApps({ db, actor, q: search, limit: DEFAULT_PAGE_SIZE, kind: "console" }).then((p) => p.items) : [],
  ]);
  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6">
      <PageHeader
        title="Apps"
        description={
          all
            ? "Every app in this portal. Grant apps endpoints, then mint tokens for them."
            : "Your apps. An app holds the grants an editor gave it; you mint tokens for it."
        }
        actions={<ButtonLink href="/apps/new">New app</ButtonLink>}
      />
      <form role="search" className="mb-4 flex gap-2" action="/apps">
        <label htmlFor="q" className="sr-only">
          Search apps
        </label>
        <input
          id="q"
          name="q"
          type="search"
          defaultValue={q ?? ""}
          placeholder="Search apps"
          className="w-full max-w-sm rounded-md border border-slate-300 px-3 py-2 text-sm"
        />
        <button type="submit" className="rounded-md border border-slate-300 px-3 py-2 text-sm font-medium hover:bg-slate-50">
          Search
        </button>
      </form>
      {page.items.length === 0 ? (
        <EmptyState title={q ? "No app matches" : "No apps yet"} action={<ButtonLink href="/apps/new">New app</ButtonLink>}>
          {q
            ? "Try another search."
            : all
              ? "An app is what a client connects as: create one, grant it endpoints, then mint a token."
              : "An app is what a client connects as: create one, request access to an API from the catalog, then mint a token."}
        </EmptyState>
      ) : (
        <AppTable caption="Apps" apps={page.items} showOwner={all} />
      )}
      <NextPageLink nextCursor={page.nextCursor} params={{ q, cursor }} basePath="/apps" />
      {systemApps.length ? (
        <section aria-labelledby="system-apps" className="mt-10" data-testid="system-apps">
          <h2 id="system-apps" className="text-base font-semibold">
            System apps
          </h2>
          <p className="mt-1 mb-3 text-sm text-slate-600">
            Apps the portal runs itself: the live console mints its short-lived tokens for this one when someone clicks Try it.
          </p>
          <AppTable caption="System apps" apps={systemApps} showOwner={false} />
        </section>
      ) : null}
    </div>
  );
}

function AppTable({ caption, apps, showOwner }: { caption: string; apps: AppRow[]; showOwner: boolean }) {
  return (
    <Table caption={caption}>
      <thead>
        <tr>
          <Th>Name</Th>
          <Th>Description</Th>
          {showOwner ? <Th>Owner</Th> : null}
          <Th>Created</Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {apps.map((a) => (
          <tr key={a.id}>
            <Td className="font-medium">
              <Link href={`/apps/${a.id}`} className="text-teal-800 hover:underline">
                {a.name}
              </Link>
              {a.kind === "console" ? (
                <span className="ml-2">
                  <Badge tone="teal">live console</Badge>
                </span>
              ) : null}
            </Td>
            <Td className="max-w-md truncate text-slate-600">{a.description}</Td>
            {showOwner ? <Td>{formatPerson(a.ownerName, a.ownerEmail)}</Td> : null}
            <Td>{formatDateTime(a.createdAt)}</Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
