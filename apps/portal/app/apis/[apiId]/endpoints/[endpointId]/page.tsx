import type { Metadata } from "next";

import { ClientCodeSection } from "@/components/client-code/client-code-section";
import { LiveConsole } from "@/components/live-console/live-console";
import { Badge } from "@/components/ui/badge";
import { ButtonLink } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/page-header";
import { hasRole } from "@/lib/auth/actor";
import { pageActor } from "@/lib/auth/current-user";
import { getDb } from "@/lib/db";
import { getEndpoint } from "@/lib/domain/endpoints/get-endpoint";
import { getEndpointValueSchema } from "@/lib/domain/registry/get-endpoint-value-schema";
import { mayViewApiUsage } from "@/lib/domain/usage/usage-scope";
import { AppError } from "@/lib/errors";

import { DeleteButton } from "../../../delete-button";
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

/** The registry schema of a registry-format endpoint, or why it cannot be shown (no registry, unreachable, not registered). */
async function valueSchemaOf(load: () => ReturnType<typeof getEndpointValueSchema>) {
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
  const showTraffic = await mayViewApiUsage({ db: getDb(), actor, apiId: endpoint.api.id });
  const { topics, kafkaError } = await topicsForForm();
  const partitions = topics?.find((t) => t.name === endpoint.topic)?.partitions;
  const registered = endpoint.valueSchema
    ? await valueSchemaOf(() => getEndpointValueSchema({ db: getDb(), actor, endpointId: endpoint.id }))
    : null;

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
        description={endpoint.description || undefined}
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
        </Fact>
        <Fact term="Operations">
          <span className="flex gap-1">
            {endpoint.operations.map((op) => (
              <Badge key={op} tone={op === "publish" ? "amber" : "teal"}>
                {op}
              </Badge>
            ))}
          </span>
        </Fact>
        <Fact term="Payload format">{endpoint.payloadFormat}</Fact>
      </dl>

      <div className="grid gap-6 lg:grid-cols-2">
        <section aria-labelledby="schema-heading">
          <h2 id="schema-heading" className="mb-2 text-base font-semibold">
            Message schema
          </h2>
          {endpoint.valueSchema ? (
            <RegistrySchema valueSchema={endpoint.valueSchema} registered={registered} />
          ) : endpoint.jsonSchema ? (
            <pre
              className="max-h-[32rem] overflow-auto rounded-lg border border-slate-200 bg-slate-50 p-3 text-xs"
              data-testid="endpoint-schema"
            >
              {pretty(endpoint.jsonSchema)}
            </pre>
          ) : (
            <p className="text-sm text-slate-500">
              No schema: the gateway accepts any{" "}
              {endpoint.payloadFormat === "json" ? "JSON value" : endpoint.payloadFormat === "text" ? "UTF-8 text" : "bytes"}.
            </p>
          )}
        </section>
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

function RegistrySchema({
  valueSchema,
  registered,
}: {
  valueSchema: { subject: string; version: number | null; strategy: string };
  registered: Awaited<ReturnType<typeof valueSchemaOf>> | null;
}) {
  const schema = registered && "schema" in registered ? registered.schema : null;
  return (
    <div data-testid="endpoint-value-schema">
      <dl className="mb-3 grid grid-cols-2 gap-x-4 gap-y-2 text-sm">
        <Fact term="Subject">
          <code className="break-all" data-testid="endpoint-value-subject">
            {valueSchema.subject}
          </code>{" "}
          <span className="text-xs text-slate-500">({valueSchema.strategy} strategy)</span>
        </Fact>
        <Fact term="Version">
          <span data-testid="endpoint-value-version">
            {valueSchema.version === null ? `latest${schema ? ` (now ${schema.version})` : ""}` : valueSchema.version}
          </span>
        </Fact>
        {schema ? (
          <>
            <Fact term="Schema type">
              <span data-testid="endpoint-value-schema-type">{schema.schemaType}</span>
            </Fact>
            <Fact term="Schema id">{schema.id}</Fact>
          </>
        ) : null}
      </dl>
      <p className="mb-2 text-xs text-slate-500">
        Records are decoded with the schema whose id they carry and arrive as JSON; publishes are encoded with the version above.
      </p>
      {schema ? (
        <pre
          className="max-h-[32rem] overflow-auto rounded-lg border border-slate-200 bg-slate-50 p-3 text-xs"
          data-testid="endpoint-schema"
        >
          {prettySchemaText(schema.schema)}
        </pre>
      ) : (
        <p className="text-sm text-amber-800" data-testid="endpoint-value-schema-problem">
          {registered && "problem" in registered ? registered.problem : "The schema could not be loaded."}
        </p>
      )}
    </div>
  );
}
