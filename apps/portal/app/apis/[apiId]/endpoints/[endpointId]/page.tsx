import type { Metadata } from "next";

import { MarkdownText } from "@/components/markdown";
import { ConnectHint } from "@/components/connect-hint";
import { ClientCodeSection } from "@/components/client-code/client-code-section";
import { LiveConsole } from "@/components/live-console/live-console";
import { Badge } from "@/components/ui/badge";
import { ButtonLink } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/page-header";
import { hasRole, tryAuthorize } from "@/lib/auth/actor";
import { pageActor } from "@/lib/auth/current-user";
import { getDb } from "@/lib/db";
import { getEndpoint } from "@/lib/domain/endpoints/get-endpoint";
import { listGrantableApps } from "@/lib/domain/grants/list-grantable-apps";
import { listPlans } from "@/lib/domain/plans/list-plans";
import { getEndpointKeySchema } from "@/lib/domain/registry/get-endpoint-key-schema";
import { getEndpointValueSchema } from "@/lib/domain/registry/get-endpoint-value-schema";
import { mayViewApiUsage } from "@/lib/domain/usage/usage-scope";
import { AppError } from "@/lib/errors";

import { DeleteButton } from "../../../delete-button";
import { GrantToApp } from "../../../grant-to-app";
import { loadOr404 } from "@/lib/load-or-404";
import { topicsForForm } from "../topics";

export const metadata: Metadata = { title: "Endpoint · Sluice" };

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

/** A registry schema's text pretty-printed when it is JSON (Avro, JSON Schema); a .proto file as is. */
function prettySchemaText(text: string): string {
  try {
    return pretty(JSON.parse(text));
  } catch {
    return text;
  }
}

/** A registry schema of the endpoint (its values' or its keys'), or why it cannot be shown (no registry, unreachable, not registered). */
async function registrySchemaOf(load: () => ReturnType<typeof getEndpointValueSchema>) {
  try {
    return { schema: await load() };
  } catch (err) {
    if (err instanceof AppError) return { problem: err.message };
    throw err;
  }
}

export default async function EndpointPage({ params }: { params: Promise<{ apiId: string; endpointId: string }> }) {
  const { apiId, endpointId } = await params;
  const actor = await pageActor("viewer", `/apis/${apiId}/endpoints/${endpointId}`);
  const endpoint = await loadOr404(() => getEndpoint({ db: getDb(), actor, apiId, endpointId }));
  const canEdit = hasRole(actor, "editor");
  const editor = tryAuthorize(actor, "editor");
  const grantableApps = editor ? await listGrantableApps({ db: getDb(), actor: editor }) : [];
  const plans = editor ? await listPlans({ db: getDb(), actor, apiId: endpoint.api.id }) : [];
  const showTraffic = await mayViewApiUsage({ db: getDb(), actor, apiId: endpoint.api.id });
  const { topics, kafkaError } = await topicsForForm();
  const partitions = topics?.find((t) => t.name === endpoint.topic)?.partitions;
  // Both asked at once: a registry that is away costs the page one timeout.
  const [registered, registeredKey] = await Promise.all([
    endpoint.valueSchema ? registrySchemaOf(() => getEndpointValueSchema({ db: getDb(), actor, endpointId: endpoint.id })) : null,
    endpoint.keySchema ? registrySchemaOf(() => getEndpointKeySchema({ db: getDb(), actor, endpointId: endpoint.id })) : null,
  ]);

  return (
    <>
      <PageHeader
        breadcrumbs={[
          { href: "/apis", label: "Catalog" },
          { href: `/apis/${apiId}`, label: `${endpoint.api.name} v${endpoint.api.version}` },
        ]}
        title={
          <code className="font-mono text-xl break-all sm:text-2xl" data-testid="endpoint-path">
            {endpoint.path}
          </code>
        }
        description={endpoint.description ? <MarkdownText source={endpoint.description} /> : undefined}
        actions={
          <>
            {showTraffic ? (
              <ButtonLink variant="secondary" href={`/apis/${apiId}/endpoints/${endpoint.id}/traffic`}>
                Traffic
              </ButtonLink>
            ) : null}
            {canEdit ? (
              <>
                <ButtonLink variant="secondary" href={`/apis/${apiId}/endpoints/${endpoint.id}/edit`}>
                  Edit endpoint
                </ButtonLink>
                <DeleteButton
                  kind="endpoint"
                  apiId={apiId}
                  endpointId={endpoint.id}
                  label="Delete endpoint"
                  confirmText={`Delete the endpoint ${endpoint.path}? Clients subscribed to it are disconnected.`}
                />
              </>
            ) : null}
          </>
        }
      />
      {/* Access requests (issue 17): the form lives on the API's request page, with this endpoint preselected. */}
      <div className="mb-6 flex flex-wrap gap-3">
        <ButtonLink href={`/apis/${apiId}/request-access?endpoint=${endpoint.id}`}>Request access</ButtonLink>
        {editor ? <GrantToApp apiId={endpoint.api.id} apps={grantableApps} endpoints={[endpoint]} plans={plans} /> : null}
      </div>

      <dl className="mb-8 grid gap-x-6 gap-y-4 text-sm sm:grid-cols-2 lg:grid-cols-3">
        <Fact term="Kafka topic">
          <code>{endpoint.topic}</code>
        </Fact>
        <Fact term="Partitions">
          <span data-testid="endpoint-partitions">
            {partitions ?? (topics ? "topic not found in Kafka" : "unknown (Kafka unreachable)")}
          </span>
          {kafkaError ? <span className="sr-only">{kafkaError}</span> : null}
        </Fact>
        <Fact term={endpoint.keyParam ? "Key parameter" : "Record key"}>
          {endpoint.keyParam ? (
            <>
              <code>{`{${endpoint.keyParam}}`}</code> <span className="text-slate-500">— every key of the topic</span>
            </>
          ) : (
            <code className="break-all">{endpoint.key}</code>
          )}
          {endpoint.keySchema ? (
            <span className="block text-xs font-normal text-slate-500" data-testid="endpoint-key-encoding">
              registry-encoded: the path key is the decoded key as JSON text
            </span>
          ) : null}
        </Fact>
        <Fact term="Operations">
          <span className="flex gap-1">
            {endpoint.operations.map((op) => (
              <Badge key={op} tone={op === "publish" ? "amber" : "teal"}>
                {op}
              </Badge>
            ))}
          </span>
          {endpoint.operations.includes("publish") ? null : (
            <span className="block text-xs font-normal text-slate-500" data-testid="endpoint-subscribe-only">
              subscribe-only: clients receive its messages and cannot publish here
            </span>
          )}
        </Fact>
        <Fact term="Payload format">{endpoint.payloadFormat}</Fact>
      </dl>

      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <section aria-labelledby="schema-heading">
          <h2 id="schema-heading" className="mb-2 text-base font-semibold">
            Message schema
          </h2>
          {endpoint.valueSchema ? (
            <RegistrySchema
              side="value"
              subject={endpoint.valueSchema}
              registered={registered}
              publishes={endpoint.operations.includes("publish")}
            />
          ) : endpoint.jsonSchema ? (
            <pre
              className="max-h-[32rem] overflow-auto rounded-lg border border-slate-200 bg-slate-50 p-3 text-xs"
              data-testid="endpoint-schema"
            >
              {pretty(endpoint.jsonSchema)}
            </pre>
          ) : (
            <p className="text-sm text-slate-500">
              No schema: {endpoint.operations.includes("publish") ? "the gateway accepts" : "messages may be"} any{" "}
              {endpoint.payloadFormat === "json" ? "JSON value" : endpoint.payloadFormat === "text" ? "UTF-8 text" : "bytes"}.
            </p>
          )}
        </section>
        {endpoint.keySchema ? (
          <section aria-labelledby="key-schema-heading">
            <h2 id="key-schema-heading" className="mb-2 text-base font-semibold">
              Key schema
            </h2>
            <RegistrySchema
              side="key"
              subject={endpoint.keySchema}
              registered={registeredKey}
              publishes={endpoint.operations.includes("publish")}
            />
          </section>
        ) : null}
        <section aria-labelledby="examples-heading">
          <h2 id="examples-heading" className="mb-2 text-base font-semibold">
            Example messages
          </h2>
          {endpoint.examples.length ? (
            <ol className="space-y-2">
              {endpoint.examples.map((ex, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: examples have no identity of their own; this list is rendered once on the server and never reordered.
                <li key={i}>
                  <figure aria-label={`Example ${i + 1}`}>
                    <pre className="overflow-auto rounded-lg border border-slate-200 bg-slate-50 p-3 text-xs">{pretty(ex)}</pre>
                  </figure>
                </li>
              ))}
            </ol>
          ) : (
            <p className="text-sm text-slate-500">No examples yet.</p>
          )}
        </section>
      </div>

      <ConnectHint path={endpoint.path} operations={endpoint.operations} payloadFormat={endpoint.payloadFormat} />

      <LiveConsole
        apiId={apiId}
        endpointId={endpoint.id}
        endpoint={{
          path: endpoint.path,
          topic: endpoint.topic,
          key: endpoint.key,
          keyParam: endpoint.keyParam,
          payloadFormat: endpoint.payloadFormat,
          jsonSchema: endpoint.jsonSchema,
        }}
        operations={endpoint.operations}
        mayPublish={canEdit}
        example={endpoint.examples[0]}
      />

      <ClientCodeSection actor={actor} apiId={apiId} channel={endpoint.path} />
    </>
  );
}

function Fact({ term, children }: { term: string; children: React.ReactNode }) {
  return (
    <div>
      <dt className="text-slate-500">{term}</dt>
      <dd className="mt-0.5 font-medium text-slate-900">{children}</dd>
    </div>
  );
}

/** A registry subject of the endpoint with its schema: the values' (role "value") or the record keys' ("key"). */
function RegistrySchema({
  side: role,
  subject,
  registered,
  publishes,
}: {
  side: "value" | "key";
  subject: { subject: string; version: number | null; strategy: string };
  registered: Awaited<ReturnType<typeof registrySchemaOf>> | null;
  /** Whether the endpoint accepts publishes: only then does the text say how they are encoded. */
  publishes: boolean;
}) {
  const schema = registered && "schema" in registered ? registered.schema : null;
  return (
    <div data-testid={`endpoint-${role}-schema`}>
      <dl className="mb-3 grid grid-cols-2 gap-x-4 gap-y-2 text-sm">
        <Fact term="Subject">
          <code className="break-all" data-testid={`endpoint-${role}-subject`}>
            {subject.subject}
          </code>{" "}
          <span className="text-xs text-slate-500">({subject.strategy} strategy)</span>
        </Fact>
        <Fact term="Version">
          <span data-testid={`endpoint-${role}-version`}>
            {subject.version === null ? `latest${schema ? ` (now ${schema.version})` : ""}` : subject.version}
          </span>
        </Fact>
        {schema ? (
          <>
            <Fact term="Schema type">
              <span data-testid={`endpoint-${role}-schema-type`}>{schema.schemaType}</span>
            </Fact>
            <Fact term="Schema id">{schema.id}</Fact>
          </>
        ) : null}
      </dl>
      <p className="mb-2 text-xs text-slate-500">
        {role === "value"
          ? `Records are decoded with the schema whose id they carry and arrive as JSON${publishes ? "; publishes are encoded with the version above" : ""}.`
          : `Record keys are decoded with the schema whose id they carry; a path key (its JSON text) is encoded with the version above to find its partition${publishes ? " and as the key of a publish" : ""}.`}
      </p>
      {schema ? (
        <pre
          className="max-h-[32rem] overflow-auto rounded-lg border border-slate-200 bg-slate-50 p-3 text-xs"
          data-testid={role === "value" ? "endpoint-schema" : "endpoint-key-schema-text"}
        >
          {prettySchemaText(schema.schema)}
        </pre>
      ) : (
        <p className="text-sm text-amber-800" data-testid={`endpoint-${role}-schema-problem`}>
          {registered && "problem" in registered ? registered.problem : "The schema could not be loaded."}
        </p>
      )}
    </div>
  );
}
