import type { Metadata } from "next";

import { PageHeader } from "@/components/ui/page-header";
import { pageActor } from "@/lib/auth/current-user";
import { getDb } from "@/lib/db";
import { getApi } from "@/lib/domain/apis/get-api";

import { ApiForm } from "../../api-form";
import { loadOr404 } from "@/lib/load-or-404";

export const metadata: Metadata = { title: "Edit API · Sluice" };

export default async function EditApiPage({ params }: { params: Promise<{ apiId: string }> }) {
  const { apiId } = await params;
  const actor = await pageActor("editor", `/apis/${apiId}/edit`);
  const api = await loadOr404(() => getApi({ db: getDb(), actor, apiId }));
  return (
    <>
      <PageHeader
        title={`Edit ${api.name}`}
        breadcrumbs={[
          { href: "/apis", label: "Catalog" },
          { href: `/apis/${api.id}`, label: api.name },
        ]}
        description={
          api.endpointCount ? `A new name or version is pushed to the gateways with all ${api.endpointCount} endpoint(s).` : undefined
        }
      />
      <ApiForm api={api} />
    </>
  );
}
