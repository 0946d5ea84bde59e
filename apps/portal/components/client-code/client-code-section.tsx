// "Client code" on an API's page and on each endpoint's page: a copy-paste
// snippet per language for one endpoint, and the whole generated client per
// language as a zip. Snippets come from the same AsyncAPI document the docs and
// the downloads use, so what is shown is what is downloaded.
import type { LanguageId } from "@sluice/codegen";

import type { AuthorizedActor } from "@/lib/auth/actor";
import { loadCodegen } from "@/lib/codegen";
import { getDb } from "@/lib/db";
import { getApiDocument } from "@/lib/domain/asyncapi/get-api-document";

import { SnippetTabs, type LanguageSnippet } from "./snippet-tabs";

export async function ClientCodeSection({ actor, apiId, channel }: { actor: AuthorizedActor; apiId: string; channel?: string }) {
  const { document } = await getApiDocument({ db: getDb(), actor, apiId });
  const { languages, snippet } = await loadCodegen();
  // On the API's page the snippet shows the first endpoint; each endpoint's page shows its own.
  const address = channel ?? Object.values(document.channels)[0]?.address;
  // What the document lets clients do there: a subscribe-only endpoint's text must not offer publishing.
  const channelKey = Object.entries(document.channels).find(([, c]) => c.address === address)?.[0];
  const actions = new Set(
    Object.values(document.operations)
      .filter((o) => o.channel.$ref === `#/channels/${channelKey}`)
      .map((o) => o.action),
  );
  const verb =
    actions.has("receive") && actions.has("send") ? "Subscribe to and publish on" : actions.has("send") ? "Publish to" : "Subscribe to";
  const snippets: LanguageSnippet[] = languages.map((language) => ({
    id: language.id,
    label: language.label,
    code: address ? snippetOrNull(() => snippet(document, language.id, address), language.id, address) : null,
    downloadHref: `/apis/${apiId}/clients/${language.id}.zip`,
  }));

  return (
    <section aria-labelledby="client-code-heading" className="mt-8" data-testid="client-code">
      <h2 id="client-code-heading" className="text-base font-semibold">
        Client code
      </h2>
      <p className="mt-1 mb-3 text-sm text-slate-600">
        {address ? (
          <>
            {verb} <code className="font-mono">{address}</code> from your code
            {channel ? "" : " (each endpoint's page shows its own snippet)"}, or download a complete client for every endpoint of this API.
          </>
        ) : (
          "This API has no endpoints yet; the downloads contain only the connection code."
        )}
      </p>
      <SnippetTabs snippets={snippets} label="Client code language" />
    </section>
  );
}

function snippetOrNull(make: () => string, language: LanguageId, address: string): string | null {
  try {
    return make() || null;
  } catch (err) {
    console.error(`client code: no ${language} snippet for ${address}`, err);
    return null;
  }
}
