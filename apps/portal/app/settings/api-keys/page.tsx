import type { Metadata } from "next";
import Link from "next/link";

import { FirstCall } from "@/components/first-call";

import { Badge } from "@/components/ui/badge";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { Table, Td, Th } from "@/components/ui/table";
import { pageActor } from "@/lib/auth/current-user";
import { portalPublicUrl } from "@/lib/config";
import { getDb } from "@/lib/db";
import { listApiKeys } from "@/lib/domain/api-keys/list-api-keys";
import { formatDateTime } from "@/lib/format";

import { CreateApiKeyForm, RevokeApiKeyButton } from "./api-key-forms";

export const metadata: Metadata = { title: "API keys · Sluice" };

export default async function ApiKeysPage() {
  const actor = await pageActor("viewer", "/settings/api-keys");
  const keys = await listApiKeys({ db: getDb(), actor });
  return (
    <>
      <PageHeader
        title="Personal API keys"
        description={
          <>
            Keys authenticate scripts against the management API as you, with your role ({actor.role}). Send one as{" "}
            <code className="rounded bg-slate-100 px-1">Authorization: Bearer slk_…</code>; every operation is in the{" "}
            <Link className="text-teal-800 underline" href="/api-reference">
              API reference
            </Link>{" "}
            (also as the{" "}
            <a className="text-teal-800 underline" href="/api/v1/openapi.json">
              OpenAPI document
            </a>
            ).
          </>
        }
      />
      <div className="mb-8">
        <FirstCall portalUrl={portalPublicUrl()} />
      </div>
      <section aria-labelledby="new-key" className="mb-8 rounded-lg border border-slate-200 p-5">
        <h2 id="new-key" className="mb-3 text-base font-semibold">
          New key
        </h2>
        <CreateApiKeyForm />
      </section>
      {keys.length === 0 ? (
        <EmptyState title="No API keys yet">
          An API key lets a script or CI job call the management API as you. Create one above; it is shown once.
        </EmptyState>
      ) : (
        <Table caption="Your API keys">
          <thead>
            <tr>
              <Th>Name</Th>
              <Th>Key</Th>
              <Th>Created</Th>
              <Th>Last used</Th>
              <Th>Expires</Th>
              <Th>
                <span className="sr-only">Actions</span>
              </Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {keys.map((k) => (
              <tr key={k.id}>
                <Td className="font-medium">{k.name}</Td>
                <Td>
                  <code className="text-xs">{k.prefix}…</code>
                </Td>
                <Td>{formatDateTime(k.createdAt)}</Td>
                <Td>{k.lastUsedAt ? formatDateTime(k.lastUsedAt) : "never"}</Td>
                <Td>{k.expiresAt ? formatDateTime(k.expiresAt) : "never"}</Td>
                <Td className="text-right">
                  {k.revokedAt ? <Badge tone="red">revoked</Badge> : <RevokeApiKeyButton keyId={k.id} name={k.name} />}
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </>
  );
}
