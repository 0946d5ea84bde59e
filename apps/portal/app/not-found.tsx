import type { Metadata } from "next";

import { StatusPage } from "@/components/status-page";
import { ButtonLink } from "@/components/ui/button";

export const metadata: Metadata = { title: "Page not found · Sluice" };

// Every notFound() and every unknown URL lands here, inside the root layout (header and footer stay).
export default function NotFound() {
  return (
    <StatusPage
      code="404"
      title="This page does not exist"
      actions={
        <>
          <ButtonLink href="/">Back to the start page</ButtonLink>
          <ButtonLink href="/apis" variant="secondary">
            Browse the catalog
          </ButtonLink>
        </>
      }
    >
      The link may be mistyped, or what it pointed to (an API, an endpoint, an app) was deleted or is not visible to you.
    </StatusPage>
  );
}
