import type { Metadata } from "next";
import Link from "next/link";

import { MarkdownText } from "@/components/markdown";
import { Badge } from "@/components/ui/badge";
import { ButtonLink } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { NextPageLink } from "@/components/ui/pagination";
import { hasRole } from "@/lib/auth/actor";
import { pageActor } from "@/lib/auth/current-user";
import { getDb } from "@/lib/db";
import { listApis, listApiTags } from "@/lib/domain/apis/list-apis";
import { AppError } from "@/lib/errors";
import { listApisQuery } from "@/lib/validation/apis";
import { parseInput } from "@/lib/validation/parse";

export const metadata: Metadata = { title: "Catalog · Sluice" };

type Search = { q?: string; tag?: string; cursor?: string };

export default async function CatalogPage({ searchParams }: { searchParams: Promise<Search> }) {
  const params = await searchParams;
  const actor = await pageActor("viewer", "/apis");
  const db = getDb();
  const query = { q: params.q || undefined, tag: params.tag || undefined, cursor: params.cursor || undefined, limit: 24 };
  const [page, tags] = await Promise.all([
    (async () => listApis({ db, actor, query: parseInput(listApisQuery, query) }))().catch((err) => {
      if (err instanceof AppError && err.status === 422) return { items: [], nextCursor: null, error: err.message };
      throw err;
    }),
    listApiTags({ db, actor }),
  ]);
  const filtered = Boolean(query.q || query.tag);
  const canEdit = hasRole(actor, "editor");

  return (
    <>
      <PageHeader
        title="API catalog"
        description="Streaming APIs group endpoints on Kafka topics. Open one to see its endpoints, message schemas and AsyncAPI docs."
        actions={canEdit ? <ButtonLink href="/apis/new">New API</ButtonLink> : null}
      />

      <form role="search" method="get" action="/apis" className="mb-6 flex flex-wrap items-end gap-3">
        <div className="min-w-0 flex-1 basis-64">
          <label htmlFor="catalog-q" className="block text-sm font-medium text-slate-800">
            Search APIs
          </label>
          <input
            id="catalog-q"
            type="search"
            name="q"
            defaultValue={query.q}
            placeholder="Name, description or tag"
            className="mt-1.5 block w-full rounded-md border border-slate-300 px-3 py-2 text-sm shadow-sm focus:border-teal-600"
          />
        </div>
        <div className="basis-48">
          <label htmlFor="catalog-tag" className="block text-sm font-medium text-slate-800">
            Tag
          </label>
          <select
            id="catalog-tag"
            name="tag"
            defaultValue={query.tag ?? ""}
            className="mt-1.5 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm"
          >
            <option value="">Any tag</option>
            {tags.map((t) => (
              <option key={t.tag} value={t.tag}>
                {t.tag} ({t.count})
              </option>
            ))}
          </select>
        </div>
        <button
          type="submit"
          className="rounded-md border border-slate-300 bg-white px-3.5 py-2 text-sm font-medium text-slate-800 hover:bg-slate-50"
        >
          Search
        </button>
        {filtered ? (
          <Link href="/apis" className="px-1 py-2 text-sm font-medium text-teal-800 hover:underline">
            Clear
          </Link>
        ) : null}
      </form>

      {"error" in page && page.error ? (
        <p role="alert" className="mb-4 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-900">
          {page.error}
        </p>
      ) : null}

      {page.items.length === 0 ? (
        filtered ? (
          <EmptyState
            title="No APIs match"
            action={
              <ButtonLink variant="secondary" href="/apis">
                Show all APIs
              </ButtonLink>
            }
          >
            Nothing in the catalog matches {query.q ? <>“{query.q}”</> : null}
            {query.q && query.tag ? " with " : null}
            {query.tag ? <>the tag “{query.tag}”</> : null}. Try fewer or other words.
          </EmptyState>
        ) : (
          <EmptyState title="The catalog is empty" action={canEdit ? <ButtonLink href="/apis/new">Create the first API</ButtonLink> : null}>
            {canEdit
              ? "A Streaming API names and versions a set of endpoints on your Kafka topics. Create one, then add endpoints to it."
              : "No Streaming APIs have been published yet. Ask your Kafka team (an editor in this portal) to add one."}
          </EmptyState>
        )
      ) : (
        <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3" aria-label="APIs">
          {page.items.map((api) => (
            <li
              key={api.id}
              className="relative flex flex-col rounded-lg border border-slate-200 p-4 shadow-sm focus-within:ring-2 focus-within:ring-teal-600 hover:border-teal-300"
            >
              <div className="flex items-baseline justify-between gap-2">
                <h2 className="min-w-0 truncate text-base font-semibold text-slate-900">
                  {/* The link covers the card, so the whole card is one click and one tab stop. */}
                  <Link href={`/apis/${api.id}`} className="after:absolute after:inset-0 focus:outline-none">
                    {api.name}
                  </Link>
                </h2>
                <Badge tone="blue">v{api.version}</Badge>
              </div>
              <p className="mt-1 line-clamp-3 flex-1 text-sm text-slate-600">
                {api.description ? (
                  <MarkdownText source={api.description} inline />
                ) : (
                  <span className="italic text-slate-500">No description</span>
                )}
              </p>
              <div className="mt-3 flex flex-wrap items-center gap-1.5 text-xs text-slate-500">
                <span>
                  {api.endpointCount} endpoint{api.endpointCount === 1 ? "" : "s"}
                </span>
                {api.tags.map((t) => (
                  <Badge key={t}>{t}</Badge>
                ))}
              </div>
            </li>
          ))}
        </ul>
      )}
      <NextPageLink nextCursor={page.nextCursor} params={{ q: query.q, tag: query.tag, cursor: query.cursor }} basePath="/apis" />
    </>
  );
}
