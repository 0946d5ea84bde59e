import { File } from "@asyncapi/generator-react-sdk";

export default function Readme({ params }) {
  const { model, header } = params.sluice;
  const lines = [
    header("html").trimEnd(),
    "",
    `# ${model.title} v${model.version} — curl client`,
    "",
    "Subscribes over Server-Sent Events and publishes over HTTP with nothing but `sh` and `curl`.",
    "",
    "## Run",
    "",
    "```sh",
    "export SLUICE_TOKEN='<your app token>'   # Sluice portal → Apps → your app → Tokens; never stored in the script",
    `export SLUICE_GATEWAY_URL=${model.gatewayUrl}   # optional: this is the default`,
    "sh client.sh help",
    "```",
    "",
    "| command | what it does |",
    "| --- | --- |",
    '| `sh client.sh subscribe PATH` | prints `{"subscribed":PATH}` once the gateway accepted the subscription, then one JSON line per message (`endpoint`, `key`, `epoch`, `partition`, `seq`, `ts`, `data`) until you stop it |',
    '| `sh client.sh publish PATH JSON` | publishes one message and prints the acknowledgement `{"endpoint","epoch","partition","seq"}`; exits non-zero with the gateway\'s error otherwise |',
  ];
  for (const c of model.channels) {
    const args = c.parameters.map((p) => p.name.toUpperCase());
    if (c.subscribe)
      lines.push(`| \`sh client.sh subscribe-${c.names.kebab}${args.map((a) => ` ${a}`).join("")}\` | subscribe to \`${c.address}\` |`);
    if (c.publish)
      lines.push(`| \`sh client.sh publish-${c.names.kebab}${args.map((a) => ` ${a}`).join("")} JSON\` | publish to \`${c.address}\` |`);
  }
  lines.push("", "## Endpoints", "");
  for (const c of model.channels) {
    const ops = [c.subscribe && "subscribe", c.publish && "publish"].filter(Boolean).join(", ");
    lines.push(`### \`${c.address}\` (${ops})`, "");
    if (c.description) lines.push(c.description, "");
    for (const p of c.parameters) lines.push(`- \`${p.name}\`: ${p.description || "path parameter"}`);
    if (c.parameters.length) lines.push("");
    if (c.subscribe) lines.push("```sh", `sh client.sh subscribe ${shq(c.examplePath)}`, "```", "");
    if (c.publish) lines.push("```sh", `sh client.sh publish ${shq(c.examplePath)} ${shq(JSON.stringify(c.examplePayload))}`, "```", "");
    if (c.schema)
      lines.push(
        "Payload JSON Schema (the gateway validates published messages against it):",
        "",
        "```json",
        JSON.stringify(c.schema, null, 2),
        "```",
        "",
      );
  }
  lines.push(
    "## Behaviour",
    "",
    "- The token is sent in the `Authorization` header through curl's config on stdin, so it never appears in the process list.",
    "- After a dropped connection the script reconnects with a randomised backoff (up to 30 s) and resumes right after the last message it printed (`Last-Event-ID`) or, before any, after the start position the stream opened with, so nothing is lost or repeated while Kafka still holds the messages. A range that cannot be delivered is reported on stderr as a `gap`.",
    "- It stops (exit 1) when the gateway refuses the token or the endpoint (401, 403, 404), or when the token expires or is revoked: get a new token and start again.",
    "- A publish is retried only when nothing can have been written (no connection, or a gateway node still starting); otherwise it exits non-zero with the gateway's problem message.",
    "- `jq` is not needed; pipe the output through `jq .data` if you have it.",
    "",
  );
  return <File name="README.md">{lines.join("\n")}</File>;
}

function shq(s) {
  return `'${String(s).replaceAll("'", "'\\''")}'`;
}
