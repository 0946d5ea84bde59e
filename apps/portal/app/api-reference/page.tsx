import type { Metadata } from "next";

import { buttonStyles } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/page-header";
import { buildOpenApiDocument } from "@/lib/api/openapi";
import { pageActor } from "@/lib/auth/current-user";
import { portalPublicUrl } from "@/lib/config";

import { ApiReferenceView } from "./api-reference-view";
import { FirstCall } from "@/components/first-call";

export const metadata: Metadata = { title: "Management API reference · Sluice" };

// The same document /api/v1/openapi.json serves, built from the route definitions
// (lib/api/openapi.ts) and handed to the renderer in the page, so the reference
// needs no second request and cannot drift from the served document.
export default async function ApiReferencePage() {
  await pageActor("viewer", "/api-reference");
  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6">
      <PageHeader
        title="Management API reference"
        description={
          <>
            Everything the portal does can be scripted through <code className="rounded bg-slate-100 px-1">/api/v1</code> with a personal
            API key, acting with your role. Create a key under{" "}
            <a href="/settings/api-keys" className="text-teal-800 underline">
              Settings → API keys
            </a>
            .
          </>
        }
        actions={
          <a href="/api/v1/openapi.json" download="sluice-openapi.json" className={buttonStyles.secondary}>
            Download OpenAPI JSON
          </a>
        }
      />
      <FirstCall portalUrl={portalPublicUrl()} />
      <section aria-label="Operations" data-testid="api-reference" className="mt-8 overflow-hidden rounded-lg border border-slate-200">
        <ApiReferenceView document={buildOpenApiDocument()} />
      </section>
    </div>
  );
}
