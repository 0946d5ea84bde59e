import type { Metadata } from "next";

import { Badge } from "@/components/ui/badge";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { Table, Td, Th } from "@/components/ui/table";
import { pageActor } from "@/lib/auth/current-user";
import { getDb } from "@/lib/db";
import { listSigningKeys } from "@/lib/domain/signing-keys/list-signing-keys";
import { formatDateTime } from "@/lib/format";

import { RotateSigningKeyButton } from "./rotate-button";

export const metadata: Metadata = { title: "Signing keys · Sluice" };

const tone = { active: "teal", retired: "amber", expired: "slate" } as const;

export default async function SigningKeysPage() {
  await pageActor("admin", "/settings/signing-keys");
  const keys = await listSigningKeys({ db: getDb() });
  return (
    <>
      <PageHeader
        title="Signing keys"
        description={
          <>
            Tokens are signed with the active key (ES256). Private keys are stored encrypted with SLUICE_SECRET_KEY. A retired key stays in
            the{" "}
            <a className="text-teal-800 underline" href="/.well-known/jwks.json">
              JWKS
            </a>{" "}
            until the last token it signed has expired.
          </>
        }
        actions={<RotateSigningKeyButton />}
      />
      {keys.length === 0 ? (
        <EmptyState title="No signing key yet">One is generated when the portal starts or when the first token is minted.</EmptyState>
      ) : (
        <Table caption="Signing keys">
          <thead>
            <tr>
              <Th>Key id (kid)</Th>
              <Th>Algorithm</Th>
              <Th>Status</Th>
              <Th>Created</Th>
              <Th>Retired</Th>
              <Th>Unexpired tokens</Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {keys.map((k) => (
              <tr key={k.kid} data-testid={`signing-key-${k.kid}`}>
                <Td>
                  <code className="text-xs">{k.kid}</code>
                </Td>
                <Td>{k.algorithm}</Td>
                <Td>
                  <Badge tone={tone[k.state]}>{k.state === "expired" ? "retired · out of JWKS" : k.state}</Badge>
                </Td>
                <Td>{formatDateTime(k.createdAt)}</Td>
                <Td>{k.retiredAt ? formatDateTime(k.retiredAt) : "—"}</Td>
                <Td>
                  {k.unexpiredTokens}
                  {k.lastTokenExpiresAt && k.state === "retired" ? (
                    <span className="block text-xs text-slate-500">until {formatDateTime(k.lastTokenExpiresAt)}</span>
                  ) : null}
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </>
  );
}
