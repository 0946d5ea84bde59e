import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";
import { z } from "zod";

import { buttonStyles } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import type { AuthorizedActor } from "@/lib/auth/actor";
import { pageActor } from "@/lib/auth/current-user";
import { getDb } from "@/lib/db";
import { getApiDocument } from "@/lib/domain/asyncapi/get-api-document";
import { AppError } from "@/lib/errors";

import { AsyncApiDocs } from "./asyncapi-docs";

type Props = { params: Promise<{ apiId: string }> };

/** Once per request, shared by the metadata and the page; null for an unknown or malformed id. */
const loadDocument = cache(async (actor: AuthorizedActor, apiId: string) => {
  if (!z.uuid().safeParse(apiId).success) return null;
  try {
    return await getApiDocument({ db: getDb(), actor, apiId });
  } catch (err) {
    if (err instanceof AppError && err.status === 404) return null;
    throw err;
  }
});

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { apiId } = await params;
  const actor = await pageActor("viewer", `/apis/${apiId}/docs`);
  const loaded = await loadDocument(actor, apiId);
  return { title: loaded ? `${loaded.api.name} ${loaded.api.version} docs · Sluice` : "API docs · Sluice" };
}

export default async function ApiDocsPage({ params }: Props) {
  const { apiId } = await params;
  const actor = await pageActor("viewer", `/apis/${apiId}/docs`);
  const loaded = await loadDocument(actor, apiId);
  if (!loaded) notFound();
  const { api, document, endpointCount } = loaded;
  const base = `/api/v1/apis/${api.id}/asyncapi`;

  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6">
      <PageHeader
        breadcrumbs={[
          { href: "/apis", label: "Catalog" },
          { href: `/apis/${api.id}`, label: `${api.name} ${api.version}` },
        ]}
        title={`${api.name} ${api.version}: documentation`}
        description="The AsyncAPI 3.0 document of this API, generated from its endpoints. Download it to generate clients or import it into other AsyncAPI tools."
        actions={
          <>
            <a href={`${base}.yaml`} download className={buttonStyles.secondary} data-testid="download-asyncapi-yaml">
              Download YAML
            </a>
            <a href={`${base}.json`} download className={buttonStyles.secondary} data-testid="download-asyncapi-json">
              Download JSON
            </a>
          </>
        }
      />
      {endpointCount === 0 ? (
        <EmptyState
          title="No endpoints yet"
          action={
            <a href={`/apis/${api.id}`} className={buttonStyles.secondary}>
              Back to the API
            </a>
          }
        >
          This API has no endpoints, so its document describes only the gateway and how to connect. Editors add endpoints on the API&apos;s
          page.
        </EmptyState>
      ) : (
        <section
          aria-label="AsyncAPI documentation"
          data-testid="asyncapi-docs"
          className="overflow-hidden rounded-lg border border-slate-200"
        >
          <AsyncApiDocs document={document} />
        </section>
      )}
    </div>
  );
}
