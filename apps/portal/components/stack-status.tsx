import { probeHealth } from "@/lib/probe-health";
import { bridgeHealthUrl, gatewayHealthUrl } from "@/lib/config";

import { StatusItem } from "./status-item";

export async function StackStatus() {
  // In parallel, so a dead stack costs one timeout rather than two.
  const [gateway, bridge] = await Promise.all([probeHealth(gatewayHealthUrl()), probeHealth(bridgeHealthUrl())]);
  const checkedAt = new Date();

  return (
    <section aria-labelledby="stack-status-heading" className="rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
      <h2 id="stack-status-heading" className="text-base font-semibold text-slate-900">
        Stack status
      </h2>
      <p className="mt-1 text-sm text-slate-600">Checked by the portal server when this page was requested.</p>
      <ul className="mt-2 divide-y divide-slate-100">
        <StatusItem testId="status-gateway" name="Gateway" purpose="Streams Kafka records to WebSocket and SSE clients" result={gateway} />
        <StatusItem testId="status-bridge" name="Bridge" purpose="Publishes catalog changes to Kafka for the gateway" result={bridge} />
      </ul>
      <p className="mt-3 flex flex-wrap items-center justify-between gap-2 text-xs text-slate-500">
        <span>
          Checked at <time dateTime={checkedAt.toISOString()}>{checkedAt.toISOString().slice(11, 19)} UTC</time>
        </span>
        {/* A plain reload: the check runs on the server, not in the browser. */}
        <a href="/" className="rounded font-medium text-teal-800 underline underline-offset-2 hover:text-teal-950">
          Check again
        </a>
      </p>
    </section>
  );
}
