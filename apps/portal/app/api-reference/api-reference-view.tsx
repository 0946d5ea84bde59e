"use client";

import "@scalar/api-reference-react/style.css";

import type { AnyApiReferenceConfiguration } from "@scalar/api-reference-react";
import dynamic from "next/dynamic";
import { useEffect, useRef } from "react";

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

// Scalar's light theme fails WCAG 2.2 AA where the portal must pass it (axe in
// e2e/specs/accessibility.spec.ts): grey text and method badges under 4.5:1, and
// sidebar toggles smaller than 24 px. Darker values of its own variables (the
// doubled class outranks the theme's) and a minimum target size fix both.
const accessibleTheme = `
.light-mode.light-mode {
  --scalar-color-2: #4b5563;
  --scalar-color-3: #52525b;
  --scalar-color-green: #047857;
  --scalar-color-blue: #0369a1;
  --scalar-color-orange: #c2410c;
  --scalar-color-red: #b91c1c;
  --scalar-color-purple: #6d28d9;
  --scalar-color-yellow: #a16207;
  --scalar-color-accent: #0369a1;
  --scalar-sidebar-color-2: #4b5563;
  --scalar-sidebar-search-color: #4b5563;
}
.light-mode li[data-sidebar-id] button { min-width: 24px; min-height: 24px; }
`;

/**
 * nameUnlabelledButtons gives Scalar's icon-only buttons the accessible name
 * they lack, as they appear: its code examples' copy buttons hide their only
 * text from assistive technology (aria-hidden), so a screen reader would
 * announce just "button".
 */
function nameUnlabelledButtons(root: HTMLElement) {
  for (const button of root.querySelectorAll<HTMLButtonElement>("button.scalar-code-copy:not([aria-label])")) {
    button.setAttribute("aria-label", "Copy the example");
  }
}

export function ApiReferenceView({ document }: { document: object }) {
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = root.current;
    if (!el) return;
    nameUnlabelledButtons(el);
    const observer = new MutationObserver(() => nameUnlabelledButtons(el));
    observer.observe(el, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, []);
  const configuration: AnyApiReferenceConfiguration = {
    customCss: accessibleTheme,
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
  return (
    <div ref={root}>
      <ApiReferenceReact configuration={configuration} />
    </div>
  );
}
