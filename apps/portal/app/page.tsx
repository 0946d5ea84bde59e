import Link from "next/link";

import { AudienceCard } from "@/components/audience-card";
import { GettingStarted } from "./getting-started";
import { EndpointExample } from "@/components/endpoint-example";
import { MarkdownText } from "@/components/markdown";
import { StackStatus } from "@/components/stack-status";
import { Badge } from "@/components/ui/badge";
import { ButtonLink } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { hasRole, type AuthorizedActor } from "@/lib/auth/actor";
import { currentActor } from "@/lib/auth/current-user";
import { gatewayServers } from "@/lib/asyncapi/build-document";
import { gatewayPublicUrl } from "@/lib/config";
import { getDb } from "@/lib/db";
import { listApis } from "@/lib/domain/apis/list-apis";
import { getChecklist } from "@/lib/domain/checklist/get-checklist";

// The stack status is a live check and the catalog changes: never prerender.
export const dynamic = "force-dynamic";

export default async function HomePage() {
  const actor = await currentActor();
  return actor ? <CatalogHome actor={actor} /> : <Landing />;
}

/**
 * Signed in: what Sluice is, the getting-started checklist (or, once the user
 * hid it, the three steps from an app to live data), and the APIs.
 */
async function CatalogHome({ actor }: { actor: AuthorizedActor }) {
  const [page, checklist] = await Promise.all([
    listApis({ db: getDb(), actor, query: { limit: 9 } }),
    getChecklist({ db: getDb(), actor }),
  ]);
  const canEdit = hasRole(actor, "editor");
  const gateway = gatewayServers(gatewayPublicUrl());
  const steps = [
    {
      title: "Create an app",
      text: "An app stands for your web, mobile or IoT client and holds its grants.",
      href: "/apps",
      cta: "Your apps",
    },
    {
      title: "Get a token",
      text: "Issue a token for the app, scoped to the endpoints it needs. Keep it secret like a password.",
      href: "/apps",
      cta: "Issue a token",
    },
    {
      title: "Connect",
      text: `Open a WebSocket to ${gateway.wsUrl} (or Server-Sent Events at ${gateway.sseBase}/{topic}/{key}) with the token and subscribe to an endpoint path.`,
      href: "/apis",
      cta: "Pick an endpoint",
    },
  ];
  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6 sm:py-10">
      <h1 className="text-3xl font-bold tracking-tight text-balance text-slate-900">Sluice streaming APIs</h1>
      <p className="mt-2 max-w-3xl text-lg text-pretty text-slate-600">
        Sluice turns Kafka topics into streaming endpoints such as{" "}
        <code className="rounded bg-slate-100 px-1 text-base">/orders/customer-42</code> that any app can subscribe to over WebSocket or SSE
        with its own token — no Kafka client needed.
      </p>

      {checklist.dismissed ? (
        <section aria-labelledby="get-access" className="mt-8">
          <h2 id="get-access" className="text-lg font-semibold">
            How to get access
          </h2>
          <ol className="mt-3 grid gap-4 md:grid-cols-3">
            {steps.map((s, i) => (
              <li key={s.title} className="flex flex-col rounded-lg border border-slate-200 p-4">
                <p className="flex items-center gap-2 font-semibold text-slate-900">
                  <span aria-hidden className="flex size-6 items-center justify-center rounded-full bg-teal-700 text-xs text-white">
                    {i + 1}
                  </span>
                  {s.title}
                </p>
                <p className="mt-1 flex-1 text-sm text-slate-600">{s.text}</p>
                <Link href={s.href} className="mt-3 text-sm font-medium text-teal-800 hover:underline">
                  {s.cta} →
                </Link>
              </li>
            ))}
          </ol>
        </section>
      ) : (
        <GettingStarted steps={checklist.steps} />
      )}

      <section aria-labelledby="home-apis" className="mt-10">
        <div className="mb-3 flex flex-wrap items-end justify-between gap-3">
          <h2 id="home-apis" className="text-lg font-semibold">
            APIs
          </h2>
          <div className="flex gap-2">
            {canEdit ? <ButtonLink href="/apis/new">New API</ButtonLink> : null}
            <ButtonLink variant="secondary" href="/apis">
              Browse the catalog
            </ButtonLink>
          </div>
        </div>
        {page.items.length === 0 ? (
          <EmptyState title="No APIs yet" action={canEdit ? <ButtonLink href="/apis/new">Create the first API</ButtonLink> : null}>
            {canEdit
              ? "Define a Streaming API, then add endpoints on your Kafka topics."
              : "Your Kafka team has not published any APIs yet."}
          </EmptyState>
        ) : (
          <ul className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3" aria-label="Recent APIs">
            {page.items.map((api) => (
              <li key={api.id} className="rounded-lg border border-slate-200 p-4 hover:border-teal-300">
                <div className="flex items-baseline justify-between gap-2">
                  <Link href={`/apis/${api.id}`} className="truncate font-semibold text-teal-900 hover:underline">
                    {api.name}
                  </Link>
                  <Badge tone="blue">v{api.version}</Badge>
                </div>
                <p className="mt-1 line-clamp-2 text-sm text-slate-600">
                  {api.description ? (
                    <MarkdownText source={api.description} inline />
                  ) : (
                    `${api.endpointCount} endpoint${api.endpointCount === 1 ? "" : "s"}`
                  )}
                </p>
              </li>
            ))}
          </ul>
        )}
        {page.nextCursor ? (
          <p className="mt-3 text-sm">
            <Link href="/apis" className="font-medium text-teal-800 hover:underline">
              See all APIs →
            </Link>
          </p>
        ) : null}
      </section>
    </div>
  );
}

const kafkaTeamPoints = [
  { term: "Endpoints from topics", text: "Expose a topic as /topic/key streaming endpoints without writing a consumer service." },
  { term: "AsyncAPI documentation", text: "Each endpoint is described as AsyncAPI, so its message format is written down once." },
  {
    term: "Tokens instead of ACLs",
    text: "Issue a JWT per app, scope it to the endpoints it needs and revoke it without touching Kafka ACLs.",
  },
];

const developerPoints = [
  { term: "Read the docs", text: "Find an endpoint and its message schema in the AsyncAPI documentation." },
  { term: "Try it live", text: "Open an endpoint in the browser console and watch real records arrive." },
  { term: "Take the client code", text: "Download generated client code and connect over WebSocket or SSE with your app's token." },
];

/** Anonymous visitors: what Sluice is, a way in, and whether the stack is up. */
function Landing() {
  return (
    <div className="mx-auto max-w-5xl px-4 py-10 sm:px-6 sm:py-14">
      <div className="grid gap-10 lg:grid-cols-[minmax(0,1fr)_20rem]">
        <div>
          <h1 className="text-3xl font-bold tracking-tight text-balance text-slate-900 sm:text-4xl">
            Sluice turns Kafka topics into streaming APIs
          </h1>
          <p className="mt-4 max-w-2xl text-lg text-pretty text-slate-600">
            A self-hosted portal and gateway for Apache Kafka. Kafka teams publish topics as documented endpoints and hand each app its own
            token; app developers subscribe over WebSocket or Server-Sent Events without a Kafka client or Kafka credentials.
          </p>
          <div className="mt-6">
            <ButtonLink href="/login">Sign in to the portal</ButtonLink>
          </div>
          <div className="mt-8">
            <EndpointExample />
          </div>
        </div>
        <div>
          <StackStatus />
        </div>
      </div>
      <div className="mt-12 grid gap-6 md:grid-cols-2">
        <AudienceCard
          id="for-kafka-teams"
          title="For Kafka teams"
          lead="Decide what leaves the cluster, and who gets it."
          points={kafkaTeamPoints}
        />
        <AudienceCard
          id="for-app-developers"
          title="For app developers"
          lead="Go from an endpoint to a running client."
          points={developerPoints}
        />
      </div>
    </div>
  );
}
