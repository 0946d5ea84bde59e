"use client";

import { useState } from "react";

/** Shows a secret that will never be shown again, with a copy button. */
export function SecretOnce({ label, value, testId = "secret-value" }: { label: string; value: string; testId?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="rounded-lg border border-amber-300 bg-amber-50 p-4" role="status">
      <p className="text-sm font-semibold text-amber-950">{label}</p>
      <p className="mt-1 text-xs text-amber-900">Copy it now: it is shown only once and Sluice does not keep it.</p>
      <div className="mt-3 flex items-stretch gap-2">
        <code
          data-testid={testId}
          className="block min-w-0 flex-1 overflow-x-auto rounded border border-amber-200 bg-white px-2 py-1.5 font-mono text-xs break-all text-slate-900"
        >
          {value}
        </code>
        <button
          type="button"
          className="rounded-md border border-amber-300 bg-white px-3 text-sm font-medium text-amber-950 hover:bg-amber-100"
          onClick={async () => {
            await navigator.clipboard.writeText(value);
            setCopied(true);
          }}
        >
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
    </div>
  );
}
