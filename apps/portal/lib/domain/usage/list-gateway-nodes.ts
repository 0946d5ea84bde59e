// Gateway nodes as their usage records describe them (usage_nodes: the last
// record of each node). A node is live while its last record is younger than
// three of its intervals and was not the final one of a graceful stop; nodes
// that stopped or went silent within the last hour are listed too, not live.
import { usageNodes } from "@sluice/db";
import { desc, gt } from "drizzle-orm";

import type { AuthorizedActor } from "../../auth/actor";
import type { DbOrTx } from "../../db";

export interface GatewayNode {
  node: string;
  version: string;
  startedAt: Date;
  uptimeSeconds: number;
  lastSeenAt: Date;
  intervalMs: number;
  connections: number;
  catalogOffsetLag: number;
  final: boolean;
  live: boolean;
}

export const RECENT_NODES_MS = 3_600_000;

export async function listGatewayNodes(options: { db: DbOrTx; actor: AuthorizedActor<"editor">; now?: number }): Promise<GatewayNode[]> {
  const now = options.now ?? Date.now();
  const rows = await options.db
    .select()
    .from(usageNodes)
    .where(gt(usageNodes.lastSeenAt, new Date(now - RECENT_NODES_MS)))
    .orderBy(desc(usageNodes.lastSeenAt), usageNodes.node);
  return rows
    .map((r) => {
      const live = !r.final && now - r.lastSeenAt.getTime() < 3 * r.intervalMs;
      return {
        node: r.node,
        version: r.version,
        startedAt: r.startedAt,
        // Uptime as of the last record: a stopped node's uptime does not grow.
        uptimeSeconds: Math.max(0, Math.round(((live ? now : r.lastSeenAt.getTime()) - r.startedAt.getTime()) / 1000)),
        lastSeenAt: r.lastSeenAt,
        intervalMs: r.intervalMs,
        connections: r.connections,
        catalogOffsetLag: r.catalogOffsetLag,
        final: r.final,
        live,
      };
    })
    .sort((a, b) => Number(b.live) - Number(a.live) || a.node.localeCompare(b.node));
}
