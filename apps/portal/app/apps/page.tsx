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
import { formatDateTime } from "@/lib/format";

export const metadata: Metadata = { title: "Apps · Sluice" };

export default async function AppsPage({ searchParams }: { searchParams: Promise<{ q?: string; cursor?: string }> }) {
  const actor = await pageActor("viewer", "/apps");
  const { q, cursor } = await searchParams;
  const page = await listApps({ db: getDb(), actor, q: q?.slice(0, 100), limit: DEFAULT_PAGE_SIZE, cursor }).catch((err) => {
    if (err instanceof AppError) return { items: [], nextCursor: null };
    throw err;
  });
  const all = hasRole(actor, "editor");
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
          {q ? "Try another search." : "An app is what a client connects as: create one, ask an editor for grants, then mint a token."}
        </EmptyState>
      ) : (
        <Table caption="Apps">
          <thead>
            <tr>
              <Th>Name</Th>
              <Th>Description</Th>
              {all ? <Th>Owner</Th> : null}
              <Th>Created</Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {page.items.map((a) => (
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
                {all ? <Td>{a.ownerEmail ?? "—"}</Td> : null}
                <Td>{formatDateTime(a.createdAt)}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <NextPageLink nextCursor={page.nextCursor} params={{ q, cursor }} basePath="/apps" />
    </div>
  );
}
