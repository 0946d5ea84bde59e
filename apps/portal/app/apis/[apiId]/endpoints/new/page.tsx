import type { Metadata } from "next";

import { PageHeader } from "@/components/ui/page-header";
import { pageActor } from "@/lib/auth/current-user";
import { getDb } from "@/lib/db";
import { getApi } from "@/lib/domain/apis/get-api";

import { EndpointForm } from "../../../endpoint-form";
import { loadOr404 } from "@/lib/load-or-404";
import { registryForForm, topicCreationForForm, topicsForForm } from "../topics";

export const metadata: Metadata = { title: "New endpoint · Sluice" };

export default async function NewEndpointPage({ params }: { params: Promise<{ apiId: string }> }) {
  const { apiId } = await params;
  const actor = await pageActor("editor", `/apis/${apiId}/endpoints/new`);
  const [api, { topics, kafkaError }] = await Promise.all([loadOr404(() => getApi({ db: getDb(), actor, apiId })), topicsForForm()]);
  return (
    <>
      <PageHeader
        title="New endpoint"
        breadcrumbs={[
          { href: "/apis", label: "Catalog" },
          { href: `/apis/${api.id}`, label: api.name },
        ]}
        description={`Expose a key of a Kafka topic, or all of its keys, as part of ${api.name} v${api.version}.`}
      />
      <EndpointForm
        apiId={api.id}
        topics={topics}
        kafkaError={kafkaError}
        registry={registryForForm()}
        topicCreation={topicCreationForForm()}
      />
    </>
  );
}
