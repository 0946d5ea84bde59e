import { AudienceCard } from "@/components/audience-card";
import { EndpointExample } from "@/components/endpoint-example";
import { StackStatus } from "@/components/stack-status";

// The stack status is a live check; a prerendered page would show the state
// of the build machine forever.
export const dynamic = "force-dynamic";

const kafkaTeamPoints = [
  {
    term: "Endpoints from topics",
    text: "Expose a topic as /topic/key streaming endpoints without writing a consumer service.",
  },
  {
    term: "AsyncAPI documentation",
    text: "Each endpoint is described as AsyncAPI, so its message format is written down once.",
  },
  {
    term: "Tokens instead of ACLs",
    text: "Issue a JWT per app, scope it to the endpoints it needs and revoke it without touching Kafka ACLs.",
  },
];

const developerPoints = [
  {
    term: "Read the docs",
    text: "Find an endpoint and its message schema in the AsyncAPI documentation.",
  },
  {
    term: "Try it live",
    text: "Open an endpoint in the browser console and watch real records arrive.",
  },
  {
    term: "Take the client code",
    text: "Download generated client code and connect over WebSocket or SSE with your app's token.",
  },
];

export default function HomePage() {
  return (
    <div className="mx-auto max-w-5xl px-4 py-10 sm:px-6 sm:py-14">
      <div className="grid gap-10 lg:grid-cols-[minmax(0,1fr)_20rem]">
        <div>
          <h1 className="text-3xl font-bold tracking-tight text-balance text-slate-900 sm:text-4xl">
            Sluice turns Kafka topics into streaming APIs
          </h1>
          <p className="mt-4 max-w-2xl text-lg text-pretty text-slate-600">
            A self-hosted portal and gateway for Apache Kafka. Kafka teams publish topics as
            documented endpoints and hand each app its own token; app developers subscribe over
            WebSocket or Server-Sent Events without a Kafka client or Kafka credentials.
          </p>
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

      <section
        aria-labelledby="portal-progress"
        className="mt-12 rounded-lg border border-amber-200 bg-amber-50 p-5"
      >
        <h2 id="portal-progress" className="text-base font-semibold text-amber-950">
          What this portal does today
        </h2>
        <p className="mt-1 text-sm leading-relaxed text-amber-900">
          This is the first version of the portal. It reports whether the gateway and the bridge
          are reachable. The endpoint catalog, token management, the live console and client
          downloads are not in this interface yet; they will appear here as they are built.
        </p>
      </section>
    </div>
  );
}
