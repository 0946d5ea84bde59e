"use client";

import { useEffect, useId, useRef, useState } from "react";

import { buttonStyles } from "@/components/ui/button";

import { CopyButton } from "./copy-button";

export interface LanguageSnippet {
  id: string;
  label: string;
  /** The snippet, or null when this language could not produce one for this endpoint. */
  code: string | null;
  /** Where the whole client in this language downloads from (a zip). */
  downloadHref: string;
}

/** Remembered across pages, so a Go developer sees Go first everywhere. */
const STORAGE_KEY = "sluice:client-language";

/**
 * One tab per language (WAI-ARIA tabs with automatic activation: arrow keys,
 * Home and End move between tabs; only the selected tab is in the tab order).
 */
export function SnippetTabs({ snippets, label }: { snippets: LanguageSnippet[]; label: string }) {
  const baseId = useId();
  const [selected, setSelected] = useState(snippets[0]?.id ?? "");
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);

  useEffect(() => {
    const remembered = window.localStorage.getItem(STORAGE_KEY);
    if (remembered && snippets.some((s) => s.id === remembered)) setSelected(remembered);
  }, [snippets]);

  const select = (index: number, focus: boolean) => {
    const snippet = snippets[index];
    if (!snippet) return;
    setSelected(snippet.id);
    window.localStorage.setItem(STORAGE_KEY, snippet.id);
    if (focus) tabs.current[index]?.focus();
  };

  const onKeyDown = (event: React.KeyboardEvent, index: number) => {
    const last = snippets.length - 1;
    const target = { ArrowRight: index === last ? 0 : index + 1, ArrowLeft: index === 0 ? last : index - 1, Home: 0, End: last }[event.key];
    if (target === undefined) return;
    event.preventDefault();
    select(target, true);
  };

  return (
    <div className="overflow-hidden rounded-lg border border-slate-200">
      <div role="tablist" aria-label={label} className="flex flex-wrap gap-1 border-b border-slate-200 bg-slate-50 px-2 pt-2">
        {snippets.map((s, i) => {
          const isSelected = s.id === selected;
          return (
            <button
              key={s.id}
              ref={(el) => {
                tabs.current[i] = el;
              }}
              type="button"
              role="tab"
              id={`${baseId}-tab-${s.id}`}
              aria-selected={isSelected}
              aria-controls={`${baseId}-panel-${s.id}`}
              tabIndex={isSelected ? 0 : -1}
              onClick={() => select(i, false)}
              onKeyDown={(e) => onKeyDown(e, i)}
              className={`-mb-px rounded-t-md border px-3 py-1.5 text-sm font-medium ${
                isSelected
                  ? "border-slate-200 border-b-white bg-white text-teal-800"
                  : "border-transparent text-slate-600 hover:text-slate-900"
              }`}
            >
              {s.label}
            </button>
          );
        })}
      </div>
      {snippets.map((s) => (
        <div
          key={s.id}
          role="tabpanel"
          id={`${baseId}-panel-${s.id}`}
          aria-labelledby={`${baseId}-tab-${s.id}`}
          hidden={s.id !== selected}
          // biome-ignore lint/a11y/noNoninteractiveTabindex: the WAI-ARIA tabs pattern makes a tab panel focusable so keyboard users reach its content (the e2e spec tabs into it).
          tabIndex={0}
          className="bg-white p-3"
          data-testid={`snippet-panel-${s.id}`}
        >
          {s.code === null ? (
            <p className="text-sm text-slate-600">No snippet for this language; the downloaded client below still covers this API.</p>
          ) : (
            <div className="relative">
              <pre
                className="max-h-[28rem] overflow-auto rounded-md bg-slate-900 p-3 pr-20 text-xs leading-relaxed text-slate-100"
                data-testid="snippet-code"
              >
                <code>{s.code}</code>
              </pre>
              <div className="absolute top-2 right-2">
                <CopyButton text={s.code} label="Copy" />
              </div>
            </div>
          )}
          <div className="mt-3 flex flex-wrap items-center gap-3">
            <a href={s.downloadHref} download className={buttonStyles.secondary} data-testid={`download-client-${s.id}`}>
              Download the {s.label} client (.zip)
            </a>
            <span className="text-xs text-slate-500">
              Every endpoint of this API, with a README. No token is embedded: the README says where it goes.
            </span>
          </div>
        </div>
      ))}
    </div>
  );
}
