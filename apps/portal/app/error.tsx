"use client";

import { useEffect } from "react";

import { StatusPage } from "@/components/status-page";
import { Button, ButtonLink } from "@/components/ui/button";

// A page that failed to render, inside the root layout. Server errors reach the
// browser without their message (Next sends only a digest), so the page shows the
// digest to quote to an operator, who finds it in the portal's log.
export default function ErrorPage({ error, retry }: { error: unknown; retry: () => void }) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  const digest = error instanceof Error && "digest" in error ? String(error.digest) : undefined;
  return (
    <StatusPage
      code="500"
      title="Something went wrong on our side"
      actions={
        <>
          <Button onClick={() => retry()}>Try again</Button>
          <ButtonLink href="/" variant="secondary">
            Back to the start page
          </ButtonLink>
        </>
      }
    >
      <p>Nothing you did caused this. Try again in a moment; if it keeps happening, tell whoever runs this Sluice.</p>
      {digest ? (
        <p className="mt-2">
          Reference: <code className="rounded bg-slate-100 px-1">{digest}</code>
        </p>
      ) : null}
    </StatusPage>
  );
}
