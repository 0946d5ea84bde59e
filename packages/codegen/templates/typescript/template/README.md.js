import { File } from "@asyncapi/generator-react-sdk";

export default function Readme({ params }) {
  const { model, header } = params.sluice;
  const cls = `${model.names.pascal}Client`;
  const first = model.channels.find((c) => c.subscribe) ?? model.channels[0];
  const pub = model.channels.find((c) => c.publish);
  // `subscribePricesSymbol("AAPL", extra)`: the example path's parameter values, then `extra`.
  const call = (c, op, extra) => {
    const segments = c.examplePath.split("/");
    const args = c.parameters.map((p) =>
      JSON.stringify(decodeURIComponent(segments[c.address.split("/").indexOf(`{${p.name}}`)] ?? "example")),
    );
    return `${op}${c.names.pascal}(${[...args, extra].join(", ")})`;
  };
  const lines = [
    header("html").trimEnd(),
    "",
    `# ${model.title} v${model.version} — TypeScript client`,
    "",
    `A typed client for the ${model.title} streaming API on [\`@sluice/sdk\`](vendor/sluice-sdk): one method per endpoint and operation, message types generated from the endpoints' JSON Schemas (\`src/types.ts\`), and a command line.`,
    "",
    "## Build",
    "",
    "```sh",
    "npm install      # ws, typescript; @sluice/sdk comes from vendor/sluice-sdk (file: dependency)",
    "npm run build    # tsc → dist/",
    "```",
    "",
    "`@sluice/sdk` is not published to npm yet, so a copy of it ships in `vendor/sluice-sdk` and `package.json` depends on it with `file:vendor/sluice-sdk`. Once it is on npm, replace that with a version range.",
    "",
    "## Command line",
    "",
    "```sh",
    "export SLUICE_TOKEN='<your app token>'   # Sluice portal → Apps → your app → Tokens; never stored in the code",
    `export SLUICE_GATEWAY_URL=${model.gatewayUrl}   # optional: this is the default`,
    "node dist/cli.js help",
  ];
  if (first?.subscribe) lines.push(`node dist/cli.js subscribe '${first.examplePath}'`);
  if (pub) lines.push(`node dist/cli.js publish '${pub.examplePath}' '${JSON.stringify(pub.examplePayload).replaceAll("'", "'\\''")}'`);
  lines.push(
    "```",
    "",
    '`subscribe` prints `{"subscribed":PATH}` once the gateway accepted the subscription, then one JSON line per message (`endpoint`, `key`, `epoch`, `partition`, `seq`, `ts`, `data`) until stopped; `publish` prints the acknowledgement `{"endpoint","epoch","partition","seq"}` or exits non-zero with the error. Status and errors go to stderr.',
    "",
    "## In your code",
    "",
    "```ts",
    `import { ${cls} } from "./dist/client.js"; // or the package name once installed`,
    'import { WebSocket } from "ws"; // Node 20 only: Node 22+ and browsers have a global WebSocket',
    "",
    `const client = await ${cls}.connect({ token: process.env.SLUICE_TOKEN!, WebSocket });`,
  );
  if (first?.subscribe) lines.push(`client.${call(first, "subscribe", "(m) => console.log(m.data, m.position)")};`);
  if (pub) lines.push(`const ack = await client.${call(pub, "publish", JSON.stringify(pub.examplePayload))};`);
  lines.push("await client.close();", "```", "", "## Endpoints", "", "| endpoint | methods | message type |", "| --- | --- | --- |");
  for (const c of model.channels) {
    const methods = [c.subscribe && `\`subscribe${c.names.pascal}\``, c.publish && `\`publish${c.names.pascal}\``]
      .filter(Boolean)
      .join(", ");
    lines.push(`| \`${c.address}\` | ${methods} | \`${c.names.pascal}Message\` |`);
  }
  lines.push(
    "",
    "## Behaviour",
    "",
    "- The token comes from `SLUICE_TOKEN` (CLI) or the `token` / `getToken` option; it is never embedded. With `getToken` a long-running client refreshes its token before it expires.",
    "- After a dropped connection the client reconnects with exponential backoff and full jitter, and resumes every subscription right after the last message it delivered: no loss and no duplicates while Kafka still holds the messages. Ranges that cannot be delivered arrive as `gap` events.",
    "- A publish is acknowledged only after Kafka stored the record. A publish in flight when the connection drops fails with `DisconnectedError` and is not re-sent (its outcome is unknown).",
    "- Errors are `SluiceError`s with a numeric `code` (see the SDK's README in `vendor/sluice-sdk`).",
    "",
  );
  return <File name="README.md">{lines.join("\n")}</File>;
}
