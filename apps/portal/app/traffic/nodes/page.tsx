import type { Metadata } from "next";

import { Badge } from "@/components/ui/badge";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { Table, Td, Th } from "@/components/ui/table";
import { pageActor } from "@/lib/auth/current-user";
import { getDb } from "@/lib/db";
import { listGatewayNodes } from "@/lib/domain/usage/list-gateway-nodes";
import { formatDateTime, formatRelativeSeconds } from "@/lib/format";

export const metadata: Metadata = { title: "Gateway nodes · Sluice" };

export default async function GatewayNodesPage() {
  const actor = await pageActor("editor", "/traffic/nodes");
  const nodes = await listGatewayNodes({ db: getDb(), actor });
  const live = nodes.filter((n) => n.live);
  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6">
      <PageHeader
        breadcrumbs={[{ href: "/traffic", label: "Traffic" }]}
        title="Gateway nodes"
        description={`${live.length} live node${live.length === 1 ? "" : "s"}, from the usage records each node writes every few seconds. A node is live while its last record is younger than three of its intervals; a stopped or silent node stays listed for an hour.`}
      />
      {nodes.length === 0 ? (
        <EmptyState title="No gateway has reported yet">
          Gateways report their usage every few seconds; check that they and the bridge run with the same SLUICE_USAGE_TOPIC.
        </EmptyState>
      ) : (
        <Table caption="Gateway nodes">
          <thead>
            <tr>
              <Th>Node</Th>
              <Th>State</Th>
              <Th>Version</Th>
              <Th>Uptime</Th>
              <Th className="text-right">Connections</Th>
              <Th className="text-right">Catalog lag</Th>
              <Th>Last seen</Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100" data-testid="gateway-nodes">
            {nodes.map((n) => (
              <tr key={n.node} data-node={n.node}>
                <Td className="font-mono text-xs">{n.node}</Td>
                <Td>{n.live ? <Badge tone="teal">live</Badge> : <Badge tone="slate">{n.final ? "stopped" : "silent"}</Badge>}</Td>
                <Td>{n.version}</Td>
                <Td>{formatRelativeSeconds(n.uptimeSeconds)}</Td>
                <Td className="text-right tabular-nums">{n.connections}</Td>
                <Td className="text-right tabular-nums">{n.catalogOffsetLag}</Td>
                <Td>{formatDateTime(n.lastSeenAt)}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </div>
  );
}
