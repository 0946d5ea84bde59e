"use client";

import "./globals.css";

import { StatusPage } from "@/components/status-page";

// Replaces the root layout when the layout itself fails (for example, the
// database is unreachable while it reads the session), so it brings its own
// <html> and <body> and must not depend on anything the layout provides.
export default function GlobalError({ error, retry }: { error: unknown; retry: () => void }) {
  const digest = error instanceof Error && "digest" in error ? String(error.digest) : undefined;
  return (
    <html lang="en">
      <body className="bg-white text-slate-900 antialiased">
        <title>Error · Sluice</title>
        <main>
          <StatusPage
            code="500"
            title="Sluice could not show this page"
            actions={
              <>
                <button
                  type="button"
                  onClick={() => retry()}
                  className="rounded-md bg-teal-700 px-3.5 py-2 text-sm font-medium text-white hover:bg-teal-800"
                >
                  Try again
                </button>
                {/* A full page load: the client router may be what failed. */}
                <a
                  href="/"
                  className="rounded-md border border-slate-300 bg-white px-3.5 py-2 text-sm font-medium text-slate-800 hover:bg-slate-50"
                >
                  Back to the start page
                </a>
              </>
            }
          >
            <p>
              The portal could not reach one of its services. Try again in a moment; if it keeps happening, tell whoever runs this Sluice.
            </p>
            {digest ? (
              <p className="mt-2">
                Reference: <code className="rounded bg-slate-100 px-1">{digest}</code>
              </p>
            ) : null}
          </StatusPage>
        </main>
      </body>
    </html>
  );
}
