import { File } from "@asyncapi/generator-react-sdk";

const html = (s) => String(s).replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
// JSON inside <script>: "<" escaped so no "</script>" or "<!--" can end the element.
const scriptJson = (v) => JSON.stringify(v).replaceAll("<", "\\u003c").replaceAll("\u2028", "\\u2028").replaceAll("\u2029", "\\u2029");

/** client.html: ONE self-contained page — the static page in ../static/client.html, the SDK bundle inlined, one form per channel. */
export default function ClientHtml({ params }) {
  const { model, header, fill, readTemplateFile, extras } = params.sluice;
  const channels = model.channels.map((c) => {
    const segments = c.examplePath.split("/");
    const parts = c.address.split("/");
    const inputs = c.parameters.map((p) => {
      const example = segments[parts.indexOf(`{${p.name}}`)] ?? "";
      let value = example;
      try {
        value = decodeURIComponent(example);
      } catch {
        /* keep */
      }
      return `  <label>${html(p.name)} <input data-param="${html(p.name)}" value="${html(value)}" spellcheck="false" title="${html(p.description)}"></label>`;
    });
    const ops = [c.subscribe && "subscribe", c.publish && "publish"].filter(Boolean).join(", ");
    const lines = [
      `<fieldset data-address="${html(c.address)}" data-channel="${html(c.id)}">`,
      `  <legend><code>${html(c.address)}</code> <span class="muted">(${ops})</span></legend>`,
      c.description ? `  <p class="muted">${html(c.description)}</p>` : "",
      ...inputs,
    ];
    if (c.publish)
      lines.push(
        `  <label>Payload (${html(c.contentType)}) <textarea data-payload spellcheck="false">${html(JSON.stringify(c.examplePayload))}</textarea></label>`,
      );
    if (c.subscribe)
      lines.push(
        `  <button type="button" data-action="subscribe">Subscribe</button><button type="button" data-action="unsubscribe">Unsubscribe</button>`,
      );
    if (c.publish) lines.push(`  <button type="button" data-action="publish">Publish</button>`);
    lines.push("</fieldset>");
    return lines.filter(Boolean).join("\n");
  });
  const first = model.channels[0];
  const sdk = extras.sdkBundle.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
  const page = fill(readTemplateFile("static/client.html"), {
    HEADER: header("html").trimEnd(),
    TITLE: html(model.title),
    VERSION: html(model.version),
    GATEWAY_URL: html(model.gatewayUrls.join(",")),
    CHANNELS: channels.join("\n\n"),
    EXAMPLE_PATH: html(first ? first.examplePath : "/topic/key"),
    EXAMPLE_PAYLOAD: html(JSON.stringify(first ? first.examplePayload : { hello: "world" })),
    API_JSON: scriptJson({
      title: model.title,
      version: model.version,
      gatewayUrl: model.gatewayUrl,
      channels: model.channels.map((c) => ({ address: c.address, subscribe: c.subscribe, publish: c.publish })),
    }),
    SDK_VERSION: html(extras.sdkVersion),
    SDK: sdk,
  });
  return <File name="client.html">{page}</File>;
}
