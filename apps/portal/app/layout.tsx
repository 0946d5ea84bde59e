import type { Metadata } from "next";

import { SiteFooter } from "@/components/site-footer";
import { SiteHeader } from "@/components/site-header";
import { CsrfProvider } from "@/components/ui/csrf";
import { currentSession } from "@/lib/auth/current-user";

import "./globals.css";

export const metadata: Metadata = {
  title: "Sluice",
  description:
    "Self-hosted streaming API portal and gateway for Apache Kafka: topics become streaming endpoints with AsyncAPI docs and per-app tokens.",
};

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  const session = await currentSession();
  return (
    <html lang="en">
      <body className="flex min-h-dvh flex-col bg-white text-slate-900 antialiased">
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:absolute focus:left-4 focus:top-4 focus:z-10 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:text-sm focus:font-medium focus:shadow"
        >
          Skip to content
        </a>
        <CsrfProvider token={session?.csrfToken ?? ""}>
          <SiteHeader />
          {/* Focusable from script only, so "Skip to content" moves the keyboard focus here, not just the view. */}
          <main id="main" tabIndex={-1} className="flex-1 focus:outline-none">
            {children}
          </main>
        </CsrfProvider>
        <SiteFooter />
      </body>
    </html>
  );
}
