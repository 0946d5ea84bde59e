import type { Metadata } from "next";
import Link from "next/link";

import { Badge } from "@/components/ui/badge";
import { buttonStyles } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { TextField } from "@/components/ui/field";
import { PageHeader } from "@/components/ui/page-header";
import { NextPageLink } from "@/components/ui/pagination";
import { Table, Td, Th } from "@/components/ui/table";
import { decodeCursor, DEFAULT_PAGE_SIZE } from "@/lib/pagination";
import { pageActor } from "@/lib/auth/current-user";
import { getDb } from "@/lib/db";
import { listAuditEntries } from "@/lib/domain/audit/list-audit-entries";
import { listAuditEntityTypes } from "@/lib/domain/audit/list-audit-entity-types";
import { AppError, type FieldError } from "@/lib/errors";
import { auditFilterInput } from "@/lib/validation/audit";
import { parseInput } from "@/lib/validation/parse";

import { ChangeDiff } from "./change-diff";

export const metadata: Metadata = { title: "Audit log · Sluice" };

const FILTERS = ["entityType", "entityId", "action", "actor", "from", "to"] as const;
type Params = Partial<Record<(typeof FILTERS)[number] | "cursor" | "console", string>>;

/** `<input type="datetime-local">` sends no zone; the page shows and takes times in UTC. */
function utcInstant(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const local = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(:\d{2}(\.\d+)?)?$/.exec(value);
  return local ? `${local[1]}${local[2] ?? ":00"}Z` : value;
}

/** An instant as `datetime-local` wants it (UTC, minutes). */
const toInputValue = (iso: string | undefined) =>
  iso && !Number.isNaN(Date.parse(iso)) ? new Date(iso).toISOString().slice(0, 16) : (iso ?? "");

export default async function AuditPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const actor = await pageActor("editor", "/audit");
  const raw = await searchParams;
  const params: Params = {};
  for (const key of [...FILTERS, "cursor", "console"] as const) {
    const v = raw[key];
    const text = (Array.isArray(v) ? v[0] : v)?.trim();
    if (text) params[key] = text;
  }

  // The live console's token mints are hidden unless asked for (?console=1): one per Try it click, they bury the rest.
  const showConsoleMints = params.console === "1";
  const db = getDb();
  const entityTypes = await listAuditEntityTypes({ db, actor });
  let fieldErrors: FieldError[] = [];
  let page: Awaited<ReturnType<typeof listAuditEntries>> | undefined;
  try {
    const filter = parseInput(auditFilterInput, { ...params, cursor: undefined, from: utcInstant(params.from), to: utcInstant(params.to) });
    page = await listAuditEntries({
      db,
      actor,
      filter,
      limit: DEFAULT_PAGE_SIZE,
      cursor: decodeCursor(params.cursor, 2),
      hideConsoleMints: !showConsoleMints,
    });
  } catch (err) {
    if (!(err instanceof AppError) || err.status !== 422) throw err;
    fieldErrors = err.fieldErrors;
  }
  const errorOf = (field: string) => fieldErrors.find((e) => e.field === field)?.message;
  const filtered = FILTERS.some((k) => params[k]);

  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6">
      <PageHeader
        title="Audit log"
        description="Every change to APIs, endpoints, apps, grants, tokens, keys and users: who made it, when, and the entity before and after. Times are UTC."
      />

      <form
        method="get"
        action="/audit"
        role="search"
        aria-label="Filter the audit log"
        className="mb-6 grid gap-4 rounded-lg border border-slate-200 p-4 sm:grid-cols-2 lg:grid-cols-3"
      >
        <TextField
          label="Entity type"
          name="entityType"
          defaultValue={params.entityType ?? ""}
          list="audit-entity-types"
          placeholder="endpoint"
          error={errorOf("entityType")}
        />
        <datalist id="audit-entity-types">
          {entityTypes.map((t) => (
            <option key={t} value={t} />
          ))}
        </datalist>
        <TextField label="Entity id" name="entityId" defaultValue={params.entityId ?? ""} error={errorOf("entityId")} />
        <TextField
          label="Action"
          name="action"
          defaultValue={params.action ?? ""}
          placeholder="endpoint.update"
          error={errorOf("action")}
        />
        <TextField label="Actor contains" name="actor" defaultValue={params.actor ?? ""} placeholder="alice@" error={errorOf("actor")} />
        <TextField
          label="From (UTC)"
          name="from"
          type="datetime-local"
          defaultValue={toInputValue(utcInstant(params.from))}
          error={errorOf("from")}
        />
        <TextField
          label="To (UTC)"
          name="to"
          type="datetime-local"
          defaultValue={toInputValue(utcInstant(params.to))}
          hint="Entries before this time"
          error={errorOf("to")}
        />
        <label className="flex items-center gap-2 text-sm text-slate-800 sm:col-span-2 lg:col-span-3">
          <input
            type="checkbox"
            name="console"
            value="1"
            defaultChecked={showConsoleMints}
            className="size-4 accent-teal-700"
            data-testid="audit-show-console"
          />
          Show the live console&apos;s token mints (one per Try it; hidden by default)
        </label>
        <div className="flex items-end gap-2 sm:col-span-2 lg:col-span-3">
          <button type="submit" className={buttonStyles.primary}>
            Apply filters
          </button>
          {filtered ? (
            <Link href="/audit" className={buttonStyles.ghost}>
              Clear filters
            </Link>
          ) : null}
        </div>
      </form>

      {fieldErrors.length ? (
        <p role="alert" data-testid="form-message" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-900">
          Some filters are not valid: {fieldErrors.map((e) => `${e.field} ${e.message}`).join("; ")}.
        </p>
      ) : !page || page.items.length === 0 ? (
        <EmptyState title={filtered ? "No entries match these filters" : "No audit entries yet"}>
          {filtered
            ? "Widen the time range or clear a filter."
            : showConsoleMints
              ? "Changes to the catalog, apps and access appear here as they happen."
              : "Changes to the catalog, apps and access appear here as they happen. The live console's token mints are hidden: tick the box above to see them."}
        </EmptyState>
      ) : (
        <>
          <Table caption="Audit log entries, newest first">
            <thead>
              <tr>
                <Th>Time (UTC)</Th>
                <Th>Actor</Th>
                <Th>Action</Th>
                <Th>Entity</Th>
                <Th>Before / after</Th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {page.items.map((e) => (
                <tr key={e.id} data-testid="audit-entry" data-entry-id={e.id}>
                  <Td className="whitespace-nowrap">
                    <time dateTime={e.occurredAt.toISOString()} title={e.occurredAt.toISOString()}>
                      {e.occurredAt.toISOString().slice(0, 19).replace("T", " ")}
                    </time>
                  </Td>
                  <Td className="break-all">
                    {e.actorName ? <span className="block font-medium">{e.actorName}</span> : null}
                    <span className={e.actorName ? "text-xs text-slate-600" : undefined}>{e.actor}</span>
                  </Td>
                  <Td>
                    <code className="text-xs">{e.action}</code>
                  </Td>
                  <Td>
                    <Badge tone="slate">{e.entityType}</Badge>
                    {e.entityName ? (
                      <span className="mt-1 block text-sm font-medium break-all text-slate-900" data-testid="audit-entity-name">
                        {e.entityName}
                      </span>
                    ) : null}
                    {e.entityId ? (
                      <Link
                        href={`/audit?${new URLSearchParams({ entityType: e.entityType, entityId: e.entityId })}`}
                        className="mt-1 block font-mono text-xs break-all text-teal-800 hover:underline"
                        title="Show this entity's history"
                      >
                        {e.entityId}
                      </Link>
                    ) : null}
                  </Td>
                  <Td className="min-w-64">
                    <details>
                      <summary className="cursor-pointer text-sm font-medium text-teal-800">Show changes</summary>
                      <ChangeDiff before={e.before} after={e.after} />
                    </details>
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
          <NextPageLink nextCursor={page.nextCursor} params={params} basePath="/audit" />
        </>
      )}
    </div>
  );
}
