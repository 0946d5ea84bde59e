// The CSV export of a usage series: one row per bucket, the same fields as the
// JSON points (snake_case headers, RFC 4180 line ends). An empty cell is a
// value the scope does not have (connections of an API).
import type { UsagePoint } from "./get-usage";

const COLUMNS: Array<[string, (p: UsagePoint) => string | number | null]> = [
  ["time", (p) => p.time.toISOString()],
  ["delivered_per_second", (p) => p.deliveredPerSecond],
  ["delivered_bytes_per_second", (p) => p.deliveredBytesPerSecond],
  ["published_per_second", (p) => p.publishedPerSecond],
  ["published_bytes_per_second", (p) => p.publishedBytesPerSecond],
  ["subscriptions", (p) => p.subscriptions],
  ["connections", (p) => p.connections],
  ["errors", (p) => p.errors],
  ["refused_connections", (p) => p.refusedConnections],
  ["refused_subscriptions", (p) => p.refusedSubscriptions],
  ["refused_publish", (p) => p.refusedPublish],
  ["refused_delivered", (p) => p.refusedDelivered],
];

export function usageCsv(points: UsagePoint[]): string {
  const lines = [COLUMNS.map(([name]) => name).join(",")];
  for (const p of points) lines.push(COLUMNS.map(([, pick]) => pick(p) ?? "").join(","));
  return `${lines.join("\r\n")}\r\n`;
}
