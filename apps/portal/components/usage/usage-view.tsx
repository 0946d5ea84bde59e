// One traffic view (all traffic, an API, an endpoint or an app): the range
// switch, the range's totals, the charts, the top apps and endpoints, and the
// CSV export. A server component; only the charts run in the browser.
import Link from "next/link";

import { Table, Td, Th } from "@/components/ui/table";
import type { TopApp, TopEndpoint, Usage, UsageTotals } from "@/lib/domain/usage/get-usage";
import { USAGE_RANGES, type UsageRange } from "@/lib/domain/usage/usage-range";

import { TimeSeriesChart } from "./usage-charts";

const RANGE_LABELS: Record<UsageRange, string> = { hour: "Last hour", day: "Last day", week: "Last week" };

export function formatCount(value: number): string {
  return new Intl.NumberFormat("en", { notation: value >= 100_000 ? "compact" : "standard", maximumFractionDigits: 1 }).format(value);
}

export function formatBytes(value: number): string {
  const units = ["B", "kB", "MB", "GB", "TB"];
  let v = value;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

/** The range tabs: links, so the range is in the URL and the page stays a server render. */
export function RangeTabs({ basePath, range }: { basePath: string; range: UsageRange }) {
  return (
    <nav aria-label="Time range" className="flex gap-1">
      {USAGE_RANGES.map((r) => (
        <Link
          key={r}
          href={`${basePath}?range=${r}`}
          aria-current={r === range ? "page" : undefined}
          className={`rounded-md px-3 py-1.5 text-sm font-medium ${r === range ? "bg-teal-700 text-white" : "text-slate-700 hover:bg-slate-100"}`}
        >
          {RANGE_LABELS[r]}
        </Link>
      ))}
    </nav>
  );
}

function Totals({ totals }: { totals: UsageTotals }) {
  const items: Array<[string, string, string]> = [
    ["Delivered", formatCount(totals.delivered), "delivered"],
    ["Delivered bytes", formatBytes(totals.deliveredBytes), "delivered-bytes"],
    ["Published", formatCount(totals.published), "published"],
    ["Published bytes", formatBytes(totals.publishedBytes), "published-bytes"],
    ["Errors", formatCount(totals.errors), "errors"],
    ["Quota refusals", formatCount(totals.refused), "refused"],
  ];
  return (
    <dl className="mb-6 grid grid-cols-2 gap-4 text-sm sm:grid-cols-3 lg:grid-cols-6">
      {items.map(([label, value, id]) => (
        <div key={id}>
          <dt className="text-slate-500">{label}</dt>
          <dd className="text-lg font-semibold" data-testid={`usage-total-${id}`}>
            {value}
          </dd>
        </div>
      ))}
    </dl>
  );
}

function TopAppsTable({ apps, linkApps }: { apps: TopApp[]; linkApps: boolean }) {
  return (
    <section aria-labelledby="top-apps-heading">
      <h2 id="top-apps-heading" className="mb-2 text-base font-semibold">
        Top apps
      </h2>
      {apps.length === 0 ? (
        <p className="text-sm text-slate-500" data-testid="usage-empty-apps">
          No app traffic in this range. A client that connects with an app&apos;s token shows here within a minute; each endpoint&apos;s
          page has its connection URLs. Try a longer range for older traffic.
        </p>
      ) : (
        <Table caption="Top apps">
          <thead>
            <tr>
              <Th>App</Th>
              <Th className="text-right">Delivered</Th>
              <Th className="text-right">Published</Th>
              <Th className="text-right">Refused</Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100" data-testid="top-apps">
            {apps.map((a) => (
              <tr key={a.appId}>
                <Td>
                  {a.name === null ? (
                    <span className="text-slate-500">deleted app {a.appId.slice(0, 8)}</span>
                  ) : linkApps ? (
                    <Link className="font-medium text-teal-800 hover:underline" href={`/apps/${a.appId}/traffic`}>
                      {a.name}
                    </Link>
                  ) : (
                    a.name
                  )}
                </Td>
                <Td className="text-right tabular-nums">{formatCount(a.delivered)}</Td>
                <Td className="text-right tabular-nums">{formatCount(a.published)}</Td>
                <Td className="text-right tabular-nums">{formatCount(a.refused)}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </section>
  );
}

function TopEndpointsTable({ endpoints, linkEndpoints }: { endpoints: TopEndpoint[]; linkEndpoints: boolean }) {
  return (
    <section aria-labelledby="top-endpoints-heading">
      <h2 id="top-endpoints-heading" className="mb-2 text-base font-semibold">
        Top endpoints
      </h2>
      {endpoints.length === 0 ? (
        <p className="text-sm text-slate-500">
          No endpoint traffic in this range. Subscriptions and publishes on an endpoint show here within a minute; try a longer range for
          older traffic.
        </p>
      ) : (
        <Table caption="Top endpoints">
          <thead>
            <tr>
              <Th>Endpoint</Th>
              <Th className="text-right">Delivered</Th>
              <Th className="text-right">Published</Th>
              <Th className="text-right">Refused</Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100" data-testid="top-endpoints">
            {endpoints.map((e) => (
              <tr key={e.endpointId}>
                <Td className="font-mono text-xs">
                  {linkEndpoints && e.apiId ? (
                    <Link className="text-teal-800 hover:underline" href={`/apis/${e.apiId}/endpoints/${e.endpointId}/traffic`}>
                      {e.path}
                    </Link>
                  ) : (
                    e.path
                  )}
                  {e.apiName ? <span className="ml-2 font-sans text-slate-500">{e.apiName}</span> : null}
                </Td>
                <Td className="text-right tabular-nums">{formatCount(e.delivered)}</Td>
                <Td className="text-right tabular-nums">{formatCount(e.published)}</Td>
                <Td className="text-right tabular-nums">{formatCount(e.refused)}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </section>
  );
}

export function UsageView({
  usage,
  basePath,
  csvHref,
  linkApps = false,
  linkEndpoints = false,
}: {
  usage: Usage;
  /** The page's own path, for the range links. */
  basePath: string;
  /** The /api/v1 usage route of the same scope, without a query. */
  csvHref: string;
  /** Whether the viewer may open each top app's / endpoint's own traffic page. */
  linkApps?: boolean;
  linkEndpoints?: boolean;
}) {
  const { window, points } = usage;
  const times = points.map((p) => p.time.getTime());
  const hasConnections = points.some((p) => p.connections !== null);
  const unitLabel = window.granularity === "minute" ? "per minute" : "per hour";
  return (
    <div data-testid="usage-view" data-range={window.range}>
      <div className="mb-4 flex flex-wrap items-center justify-between gap-3">
        <RangeTabs basePath={basePath} range={window.range} />
        <a className="text-sm font-medium text-teal-800 hover:underline" href={`${csvHref}?range=${window.range}&format=csv`} download>
          Export CSV
        </a>
      </div>
      <Totals totals={usage.totals} />
      {/* grid-cols-1 (minmax(0, 1fr)), not the implicit auto column: a wide chart or table scrolls in its box instead of widening the page on a phone. */}
      <div className="mb-8 grid grid-cols-1 gap-4 lg:grid-cols-2">
        <TimeSeriesChart
          id="messages"
          title="Messages per second"
          times={times}
          series={[
            { name: "delivered", values: points.map((p) => p.deliveredPerSecond) },
            { name: "published", values: points.map((p) => p.publishedPerSecond) },
          ]}
          unit="/s"
        />
        <TimeSeriesChart
          id="bytes"
          title="Bytes per second"
          times={times}
          series={[
            { name: "delivered", values: points.map((p) => p.deliveredBytesPerSecond) },
            { name: "published", values: points.map((p) => p.publishedBytesPerSecond) },
          ]}
          unit="B/s"
        />
        <TimeSeriesChart
          id="clients"
          title={hasConnections ? "Connections and subscriptions (peak)" : "Subscriptions (peak)"}
          times={times}
          series={[
            ...(hasConnections ? [{ name: "connections", values: points.map((p) => p.connections) }] : []),
            { name: "subscriptions", values: points.map((p) => p.subscriptions) },
          ]}
        />
        <TimeSeriesChart
          id="refusals"
          title={`Quota refusals and errors (${unitLabel})`}
          times={times}
          stacked
          series={[
            ...(hasConnections
              ? [{ name: "connections refused", kind: "bar" as const, values: points.map((p) => p.refusedConnections) }]
              : []),
            { name: "subscriptions refused", kind: "bar", values: points.map((p) => p.refusedSubscriptions) },
            { name: "publishes refused", kind: "bar", values: points.map((p) => p.refusedPublish) },
            { name: "deliveries refused", kind: "bar", values: points.map((p) => p.refusedDelivered) },
            { name: "errors", kind: "bar", values: points.map((p) => p.errors) },
          ]}
        />
      </div>
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        {usage.topApps.length > 0 || usage.topEndpoints.length === 0 ? <TopAppsTable apps={usage.topApps} linkApps={linkApps} /> : null}
        {usage.topEndpoints.length > 0 || usage.topApps.length === 0 ? (
          <TopEndpointsTable endpoints={usage.topEndpoints} linkEndpoints={linkEndpoints} />
        ) : null}
      </div>
      <p className="mt-6 text-xs text-slate-500">
        {window.granularity === "minute" ? "One point per minute" : "One point per hour"}, from {window.from.toISOString().slice(0, 16)} to{" "}
        {window.to.toISOString().slice(0, 16)} UTC; the last point is still filling. Rates are averages over the bucket; connections and
        subscriptions are the bucket&apos;s peak.
      </p>
    </div>
  );
}
