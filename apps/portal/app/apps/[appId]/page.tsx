import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { z } from "zod";

import { ConnectHint } from "@/components/connect-hint";
import { Badge } from "@/components/ui/badge";
import { ButtonLink } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { NextPageLink } from "@/components/ui/pagination";
import { Table, Td, Th } from "@/components/ui/table";
import { DEFAULT_PAGE_SIZE } from "@/lib/pagination";
import { hasRole, tryAuthorize } from "@/lib/auth/actor";
import { pageActor } from "@/lib/auth/current-user";
import { gatewayPublicUrl, tokenSettings } from "@/lib/config";
import { connectUrls } from "@/lib/connect-urls";
import { getDb } from "@/lib/db";
import { getApp } from "@/lib/domain/apps/get-app";
import { listAppAccessRequests } from "@/lib/domain/access-requests/list-access-requests";
import { listGrantChoices } from "@/lib/domain/grants/list-grant-choices";
import { listGrants } from "@/lib/domain/grants/list-grants";
import { listPlanChoices } from "@/lib/domain/plans/list-plans";
import { countActiveTokens } from "@/lib/domain/tokens/count-active-tokens";
import { listTokens } from "@/lib/domain/tokens/list-tokens";
import { formatDateTime, formatPerson, formatPlanLimits, formatRelativeSeconds } from "@/lib/format";
import { loadOr404 } from "@/lib/load-or-404";

import {
  AddGrantForm,
  GrantPlanForm,
  AppForm,
  DeleteAppButton,
  MintTokenForm,
  RemoveGrantButton,
  RevokeAllTokensButton,
  RevokeTokenButton,
} from "../app-forms";
import { WithdrawButton } from "../../access-requests/access-request-forms";
import { AccessRequestTable } from "../../access-requests/request-table";

export const metadata: Metadata = { title: "App · Sluice" };

const LIFETIMES = [3600, 86400, 7 * 86400, 30 * 86400, 90 * 86400, 365 * 86400];
const statusTone = { active: "teal", expired: "slate", revoked: "red" } as const;

function lifetimeChoices(max: number) {
  const choices = LIFETIMES.filter((s) => s <= max);
  if (!choices.includes(max)) choices.push(max);
  return choices.map((seconds) => ({
    seconds,
    label: seconds === max ? `${formatRelativeSeconds(seconds)} (maximum)` : formatRelativeSeconds(seconds),
  }));
}

function PermissionList({ permissions }: { permissions: unknown }) {
  const p = permissions as { sub?: string[]; pub?: string[]; all?: string[] };
  const rows = (["sub", "pub", "all"] as const).flatMap((list) => (p[list] ?? []).map((entry) => ({ list, entry })));
  return (
    <ul className="space-y-0.5">
      {rows.map((r) => (
        <li key={`${r.list}${r.entry}`} className="font-mono text-xs">
          <span className="text-slate-500">{r.list}</span> {r.entry}
        </li>
      ))}
    </ul>
  );
}

export default async function AppPage({
  params,
  searchParams,
}: {
  params: Promise<{ appId: string }>;
  searchParams: Promise<{ cursor?: string }>;
}) {
  const { appId } = await params;
  const { cursor } = await searchParams;
  const actor = await pageActor("viewer", `/apps/${appId}`);
  if (!z.uuid().safeParse(appId).success) notFound();
  const db = getDb();
  const app = await loadOr404(() => getApp({ db, actor, appId }));
  const grants = await listGrants({ db, actor, appId });
  const requests = await listAppAccessRequests({ db, actor, appId, limit: DEFAULT_PAGE_SIZE });
  const tokens = await loadOr404(() => listTokens({ db, actor, appId, limit: DEFAULT_PAGE_SIZE, cursor }));
  const activeTokens = await countActiveTokens({ db, actor, appId });
  const editor = hasRole(actor, "editor");
  const editorActor = tryAuthorize(actor, "editor");
  const planChoices = editorActor ? await listPlanChoices({ db, actor: editorActor }) : [];
  const endpointChoices = editorActor ? await listGrantChoices({ db, actor: editorActor }) : [];
  const { maxLifetimeSeconds } = tokenSettings();
  const isConsole = app.kind === "console";
  // The Connect hints show an exact grant's path when the app has one; a wildcard is no path to connect to.
  const connectPath = grants.find((g) => !g.endpointPattern.includes("*"))?.endpointPattern ?? "/{topic}/{key}";
  const connect = connectUrls(gatewayPublicUrl(), connectPath);

  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6">
      <PageHeader
        title={app.name}
        breadcrumbs={[{ href: "/apps", label: "Apps" }]}
        description={
          <>
            {app.description ? <span className="block">{app.description}</span> : null}
            <span className="block text-xs text-slate-500">
              App id <code data-testid="app-id">{app.id}</code> · owner {formatPerson(app.ownerName, app.ownerEmail)} · created{" "}
              {formatDateTime(app.createdAt)}
              {app.tokensNotBefore ? ` · tokens issued before ${formatDateTime(app.tokensNotBefore)} are revoked` : ""}
            </span>
          </>
        }
        actions={
          <>
            <ButtonLink variant="secondary" href={`/apps/${app.id}/traffic`}>
              Traffic
            </ButtonLink>
            {isConsole ? null : <DeleteAppButton appId={app.id} name={app.name} />}
          </>
        }
      />

      {isConsole ? (
        <p
          className="mb-10 max-w-3xl rounded-lg border border-teal-200 bg-teal-50 p-4 text-sm text-teal-900"
          data-testid="console-app-note"
        >
          The portal&apos;s live console mints this app&apos;s tokens when a signed-in user clicks <strong>Try it</strong> on an endpoint
          page: each names that one endpoint, lives ten minutes and is listed below with the user who asked for it. The app has no grants
          and cannot be deleted; revoke its tokens here.
        </p>
      ) : (
        <section aria-labelledby="grants-heading" className="mb-10">
          <h2 id="grants-heading" className="mb-1 text-lg font-semibold">
            Grants
          </h2>
          <p className="mb-4 text-sm text-slate-600">
            What tokens of this app may be allowed to do.{" "}
            {editor ? "" : "Editors and admins set grants; to get some, request access from an API's or endpoint's page."}
          </p>
          {grants.length === 0 ? (
            <EmptyState
              title="No grants yet"
              action={
                editor ? null : (
                  <ButtonLink variant="secondary" href="/apis">
                    Browse the catalog
                  </ButtonLink>
                )
              }
            >
              {editor
                ? "Add one below: an endpoint path or a wildcard such as /prices/*."
                : "Request access from an API's or endpoint's page in the catalog; once approved, the grants appear here and you can mint tokens."}
            </EmptyState>
          ) : (
            <Table caption="Grants">
              <thead>
                <tr>
                  <Th>Endpoint pattern</Th>
                  <Th>Operations</Th>
                  <Th>Plan</Th>
                  <Th>Granted</Th>
                  {editor ? (
                    <Th>
                      <span className="sr-only">Actions</span>
                    </Th>
                  ) : null}
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {grants.map((g) => (
                  <tr key={g.id}>
                    <Td className="font-mono text-xs">{g.endpointPattern}</Td>
                    <Td>{g.operations.join(", ")}</Td>
                    <Td className="text-sm">
                      {g.plan ? (
                        <>
                          <span className="font-medium">{g.plan.name}</span>{" "}
                          <span className="text-xs text-slate-500">({g.plan.apiName})</span>
                          <span className="block text-xs text-slate-600">{formatPlanLimits(g.plan.limits)}</span>
                        </>
                      ) : (
                        <span className="text-slate-500">none (no limits)</span>
                      )}
                      {editor && planChoices.length ? (
                        <div className="mt-1">
                          <GrantPlanForm appId={app.id} grantId={g.id} planId={g.planId} plans={planChoices} />
                        </div>
                      ) : null}
                    </Td>
                    <Td>{formatDateTime(g.createdAt)}</Td>
                    {editor ? (
                      <Td className="text-right">
                        <RemoveGrantButton appId={app.id} grantId={g.id} pattern={g.endpointPattern} />
                      </Td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
          {editor ? (
            <div className="mt-4 rounded-lg border border-slate-200 p-5">
              <h3 className="mb-3 text-base font-semibold">Add a grant</h3>
              <AddGrantForm appId={app.id} plans={planChoices} endpoints={endpointChoices} />
            </div>
          ) : null}
        </section>
      )}

      {isConsole ? null : (
        <section aria-labelledby="access-requests-heading" className="mb-10">
          <h2 id="access-requests-heading" className="mb-1 text-lg font-semibold">
            Access requests
          </h2>
          <p className="mb-4 text-sm text-slate-600">
            What this app asked for and what the API&apos;s owner or an editor decided. Ask for more from an API&apos;s page in the{" "}
            <a className="text-teal-800 underline" href="/apis">
              catalog
            </a>
            .
          </p>
          {requests.items.length === 0 ? (
            <EmptyState
              title="No access requests yet"
              action={
                <ButtonLink variant="secondary" href="/apis">
                  Browse the catalog
                </ButtonLink>
              }
            >
              Request access from an API&apos;s or endpoint&apos;s page; the request and its decision show here.
            </EmptyState>
          ) : (
            <AccessRequestTable
              caption="Access requests of this app"
              requests={requests.items}
              show="api"
              actions={(r) => (r.state === "pending" ? <WithdrawButton requestId={r.id} /> : null)}
            />
          )}
        </section>
      )}

      <section aria-labelledby="tokens-heading" className="mb-10">
        <h2 id="tokens-heading" className="mb-1 text-lg font-semibold">
          Tokens
        </h2>
        <p className="mb-4 text-sm text-slate-600">
          Clients connect to the gateway with a token (a signed JWT). Verify tokens with the{" "}
          <a className="text-teal-800 underline" href="/.well-known/jwks.json">
            JWKS
          </a>
          .
        </p>
        {grants.length > 0 ? (
          <div className="mb-6 rounded-lg border border-slate-200 p-5">
            <h3 className="mb-3 text-base font-semibold">Mint a token</h3>
            <MintTokenForm
              appId={app.id}
              grants={grants.map((g) => ({ pattern: g.endpointPattern, operations: g.operations }))}
              lifetimes={lifetimeChoices(maxLifetimeSeconds)}
              connect={{ wsUrl: connect.wsUrl, sseUrl: connect.sseUrl }}
            />
          </div>
        ) : null}
        {tokens.items.length === 0 ? (
          <EmptyState title="No tokens yet">
            {grants.length
              ? "Mint one above: a token is what a client connects with, and it is shown only once."
              : isConsole
                ? "Tokens appear here when someone clicks Try it on an endpoint's page."
                : editor
                  ? "Tokens can be minted once the app has a grant: add one above."
                  : "Tokens can be minted once the app has grants: request access from the catalog."}
          </EmptyState>
        ) : (
          <>
            <Table caption="Tokens">
              <thead>
                <tr>
                  <Th>Token id (jti)</Th>
                  <Th>Permissions</Th>
                  <Th>Created</Th>
                  <Th>Expires</Th>
                  <Th>Status</Th>
                  <Th>
                    <span className="sr-only">Actions</span>
                  </Th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {tokens.items.map((t) => (
                  <tr key={t.jti} data-testid={`token-row-${t.jti}`}>
                    <Td>
                      <code className="text-xs">{t.jti}</code>
                      {t.description ? <span className="block text-xs text-slate-500">{t.description}</span> : null}
                    </Td>
                    <Td>
                      <PermissionList permissions={t.permissions} />
                    </Td>
                    <Td>{formatDateTime(t.issuedAt)}</Td>
                    <Td>{formatDateTime(t.expiresAt)}</Td>
                    <Td>
                      <Badge tone={statusTone[t.status]}>{t.status}</Badge>
                      {t.revokedAt ? <span className="block text-xs text-slate-500">{formatDateTime(t.revokedAt)}</span> : null}
                    </Td>
                    <Td className="text-right">{t.status === "active" ? <RevokeTokenButton appId={app.id} jti={t.jti} /> : null}</Td>
                  </tr>
                ))}
              </tbody>
            </Table>
            <NextPageLink nextCursor={tokens.nextCursor} params={{ cursor }} basePath={`/apps/${app.id}`} />
          </>
        )}
        {/* Only when a token still works: with none, the button would act on nothing. */}
        {activeTokens > 0 ? (
          <div className="mt-4">
            <RevokeAllTokensButton appId={app.id} name={app.name} />
          </div>
        ) : null}
        {isConsole ? null : <ConnectHint path={connectPath} headingLevel={3} />}
      </section>

      <section aria-labelledby="edit-heading" className="rounded-lg border border-slate-200 p-5">
        <h2 id="edit-heading" className="mb-3 text-lg font-semibold">
          Edit app
        </h2>
        <AppForm app={{ id: app.id, name: app.name, description: app.description }} />
      </section>
    </div>
  );
}
