"use client";

import "@scalar/api-reference-react/style.css";

import type { AnyApiReferenceConfiguration } from "@scalar/api-reference-react";
import dynamic from "next/dynamic";

// Scalar's renderer is a Vue app mounted in the browser (its React wrapper only
// mounts it in an effect), so it is loaded on the client only, from the package:
// no CDN script and, with the settings below, no font or telemetry request either.
const ApiReferenceReact = dynamic(() => import("@scalar/api-reference-react").then((m) => m.ApiReferenceReact), {
  ssr: false,
  loading: () => (
    <p role="status" className="py-10 text-center text-sm text-slate-500">
      Loading the reference…
    </p>
  ),
});

export function ApiReferenceView({ document }: { document: object }) {
  const configuration: AnyApiReferenceConfiguration = {
    content: document,
    // Everything stays on this origin: the fonts come from the portal's own CSS
    // (withDefaultFonts would load them from fonts.scalar.com), no usage telemetry,
    // and no hosted extras (Scalar's API client, agent and MCP links, its request proxy).
    withDefaultFonts: false,
    telemetry: false,
    hideClientButton: true,
    hideTestRequestButton: true,
    showDeveloperTools: "never",
    agent: { disabled: true },
    mcp: { disabled: true },
    // The portal is light only; the reference follows it.
    forceDarkModeState: "light",
    hideDarkModeToggle: true,
    showSidebar: true,
    defaultOpenFirstTag: true,
    operationTitleSource: "summary",
  };
  return <ApiReferenceReact configuration={configuration} />;
}
