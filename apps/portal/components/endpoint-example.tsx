// Illustrates the one mapping everything else hangs on: a topic plus a
// record key becomes a URL path that clients subscribe to.
export function EndpointExample() {
  return (
    <figure className="rounded-lg border border-slate-200 bg-slate-950 p-4 font-mono text-sm text-slate-100">
      <figcaption className="mb-3 font-sans text-xs font-medium uppercase tracking-wide text-slate-400">
        Topic and key become an endpoint
      </figcaption>
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1">
        <dt className="text-slate-400">topic</dt>
        <dd>orders</dd>
        <dt className="text-slate-400">key</dt>
        <dd>customer-42</dd>
        <dt className="text-slate-400">endpoint</dt>
        <dd className="text-teal-300">/orders/customer-42</dd>
      </dl>
      <p className="mt-3 font-sans text-xs text-slate-400">
        Clients subscribe over WebSocket or Server-Sent Events and receive that key&apos;s records as they arrive.
      </p>
    </figure>
  );
}
