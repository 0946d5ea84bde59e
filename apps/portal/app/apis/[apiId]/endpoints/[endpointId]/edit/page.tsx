import type { Metadata } from "next";

import { PageHeader } from "@/components/ui/page-header";
import { pageActor } from "@/lib/auth/current-user";
import { getDb } from "@/lib/db";
import { getEndpoint } from "@/lib/domain/endpoints/get-endpoint";

import { EndpointForm } from "../../../../endpoint-form";
import { loadOr404 } from "@/lib/load-or-404";
import { registryForForm, topicCreationForForm, topicsForForm } from "../../topics";

export const metadata: Metadata = { title: "Edit endpoint · Sluice" };

export default async function EditEndpointPage({ params }: { params: Promise<{ apiId: string; endpointId: string }> }) {
  const { apiId, endpointId } = await params;
  const actor = await pageActor("editor", `/apis/${apiId}/endpoints/${endpointId}/edit`);
  const [endpoint, { topics, kafkaError }] = await Promise.all([
    loadOr404(() => getEndpoint({ db: getDb(), actor, apiId, endpointId })),
    topicsForForm(),
  ]);
  return (
    <>
      <PageHeader
        title={`Edit ${endpoint.path}`}
        breadcrumbs={[
          { href: "/apis", label: "Catalog" },
          { href: `/apis/${apiId}`, label: `${endpoint.api.name} v${endpoint.api.version}` },
          { href: `/apis/${apiId}/endpoints/${endpoint.id}`, label: endpoint.path },
        ]}
      />
      <EndpointForm
        apiId={apiId}
        topics={topics}
        kafkaError={kafkaError}
        registry={registryForForm()}
        topicCreation={topicCreationForForm()}
        endpoint={{
          id: endpoint.id,
          topic: endpoint.topic,
          key: endpoint.keyParam ? `{${endpoint.keyParam}}` : (endpoint.key ?? ""),
          operations: endpoint.operations,
          payloadFormat: endpoint.payloadFormat,
          jsonSchema: endpoint.jsonSchema ? JSON.stringify(endpoint.jsonSchema, null, 2) : "",
          valueSchema: endpoint.valueSchema
            ? {
                strategy: endpoint.valueSchema.strategy,
                recordName: endpoint.valueSchema.recordName ?? "",
                version: endpoint.valueSchema.version === null ? "latest" : String(endpoint.valueSchema.version),
              }
            : undefined,
          keySchema: endpoint.keySchema
            ? {
                strategy: endpoint.keySchema.strategy,
                recordName: endpoint.keySchema.recordName ?? "",
                version: endpoint.keySchema.version === null ? "latest" : String(endpoint.keySchema.version),
              }
            : undefined,
          examples: endpoint.examples.length ? JSON.stringify(endpoint.examples, null, 2) : "",
          description: endpoint.description,
        }}
      />
    </>
  );
}
