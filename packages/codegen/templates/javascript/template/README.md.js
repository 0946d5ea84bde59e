import { File } from "@asyncapi/generator-react-sdk";

export default function Readme({ params }) {
  const { model, header } = params.sluice;
  const lines = [
    header("html").trimEnd(),
    "",
    `# ${model.title} v${model.version} — browser client`,
    "",
    "`client.html` is one self-contained page: the Sluice SDK is inlined, nothing is loaded from elsewhere. Open it in a browser (a `file://` URL works), paste an app token (Sluice portal → Apps → your app → Tokens), then subscribe and publish with the forms. The token stays in the page's memory and is sent only to the gateway; it is never stored in the file.",
    "",
    `The gateway URL is prefilled with \`${model.gatewayUrl}\`; change it in the page if yours differs.`,
    "",
    "## Endpoints",
    "",
    ...model.channels.map((c) => `- \`${c.address}\` — ${[c.subscribe && "subscribe", c.publish && "publish"].filter(Boolean).join(", ")}`),
    "",
    "## Output and scripting",
    "",
    'The output panel (`#output`) shows one JSON line per event: `{"subscribed":PATH}` once the gateway confirmed a subscription, each message (`endpoint`, `key`, `epoch`, `partition`, `seq`, `ts`, `data`) and each publish acknowledgement (`endpoint`, `epoch`, `partition`, `seq`). Errors appear in `#errors`.',
    "",
    "For automation the page exposes `window.sluiceClient` with `connect()`, `subscribe(path)`, `unsubscribe(path)`, `publish(path, data)` (all return promises) and `lines` (the output lines). Form elements: `#gateway`, `#token`, `#path`, `#payload`, `#subscribe`, `#publish`; per endpoint `fieldset[data-address]` with `input[data-param]`, `textarea[data-payload]` and `button[data-action]`.",
    "",
    "The SDK reconnects with backoff after a dropped connection and resumes each subscription right after the last message it delivered.",
    "",
  ];
  return <File name="README.md">{lines.join("\n")}</File>;
}
