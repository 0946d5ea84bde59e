import { CopyButton } from "./client-code/copy-button";

/** A first request with curl against this portal: who the key belongs to. Shown here and under Settings → API keys. */
export function FirstCall({ portalUrl, headingLevel = 2 }: { portalUrl: string; headingLevel?: 2 | 3 }) {
  const command = `curl -H "Authorization: Bearer slk_YOUR_KEY" ${portalUrl.replace(/\/+$/, "")}/api/v1/me`;
  const Heading = `h${headingLevel}` as const;
  return (
    <section aria-labelledby="first-call" className="rounded-lg border border-slate-200 bg-slate-50 p-4" data-testid="first-call">
      <div className="flex items-center justify-between gap-3">
        <Heading id="first-call" className="text-base font-semibold text-slate-900">
          Your first call
        </Heading>
        <CopyButton text={command} label="Copy command" />
      </div>
      <p className="mt-1 text-sm text-slate-600">
        Replace <code className="rounded bg-white px-1">slk_YOUR_KEY</code> with a key from Settings → API keys. The answer names you and
        your role; errors come back as <code className="rounded bg-white px-1">application/problem+json</code> naming the field.
      </p>
      <pre className="mt-3 overflow-x-auto rounded-md bg-slate-900 p-3 text-sm text-slate-100">
        <code data-testid="first-call-command">{command}</code>
      </pre>
    </section>
  );
}
