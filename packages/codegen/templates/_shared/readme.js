// The README of the Python, Go and Java clients: one structure, language-specific commands.

const shq = (s) => `'${String(s).replaceAll("'", "'\\''")}'`;

/**
 * @param sluice the template context
 * @param lang { name, requirements, build: string[], run: string (command prefix), files: [path, what][], library: string[] (Markdown lines) }
 */
export function readme(sluice, lang) {
  const { model, header } = sluice;
  const first = model.channels.find((c) => c.subscribe) ?? model.channels[0];
  const pub = model.channels.find((c) => c.publish);
  const lines = [
    header("html").trimEnd(),
    "",
    `# ${model.title} v${model.version} — ${lang.name} client`,
    "",
    model.description || "",
    "",
    `A client for the Sluice gateway's WebSocket protocol (subprotocol \`sluice.v1\`): typed functions per endpoint and a command line. ${lang.requirements}`,
    "",
    "## Build",
    "",
    "```sh",
    ...lang.build,
    "```",
    "",
    "## Run",
    "",
    "```sh",
    "export SLUICE_TOKEN=<app token>   # Sluice portal → Apps → your app → Tokens; never stored in the code",
    `export SLUICE_GATEWAY_URL=${model.gatewayUrl}   # optional: this is the default`,
    ...(first?.subscribe ? [`${lang.run} subscribe ${shq(first.examplePath)}`] : []),
    ...(pub ? [`${lang.run} publish ${shq(pub.examplePath)} ${shq(JSON.stringify(pub.examplePayload))}`] : []),
    "```",
    "",
    `- \`subscribe PATH [--from earliest|latest|<ms>]\` prints \`{"subscribed":PATH}\` once the gateway accepted the subscription, then one JSON line per message (\`endpoint\`, \`partition\`, \`seq\`, \`epoch\`, \`key\`, \`data\`, \`ts\`; \`encoding\` for base64 data) until stopped. Status lines (reconnects, gaps) go to stderr.`,
    '- `publish PATH JSON` prints the acknowledgement `{"endpoint","epoch","partition","seq"}` and exits 0; otherwise it exits 1 with the gateway\'s error on stderr (2 for bad usage). On a `bytes` endpoint JSON is a string whose UTF-8 bytes are sent.',
    "- PATH is a concrete endpoint: `/topic/key`, each key segment percent-encoded.",
    "",
    "## Endpoints",
    "",
    "| endpoint | operations | payload | functions |",
    "| --- | --- | --- | --- |",
    ...model.channels.map((c) => {
      const ops = [c.subscribe && "subscribe", c.publish && "publish"].filter(Boolean).join(", ");
      return `| \`${c.address}\` | ${ops} | ${c.registry ? `${c.registry.format} as JSON (registry subject \`${c.registry.subject}\`)` : `${c.payloadFormat}${c.schema ? " (JSON Schema)" : ""}`} | ${lang
        .functions(c)
        .map((f) => `\`${f}\``)
        .join(", ")} |`;
    }),
    "",
    "## Use it as a library",
    "",
    ...lang.library,
    "",
    "## Behaviour",
    "",
    "- **Reconnect and resume.** After a dropped connection the client reconnects with exponential backoff and full jitter (0.5 s doubling up to 30 s) and re-subscribes every endpoint from the last position it delivered (`epoch`, `partition`, `seq`), dropping anything at or before it: no message is lost or repeated while Kafka still holds it. A range that cannot be delivered arrives as a `gap` (stderr on the command line).",
    "- **Publish** waits up to 30 s for a connection and for Kafka's acknowledgement. It is sent once: when the connection drops before the acknowledgement the call fails (the record may or may not have been written) rather than risk writing it twice.",
    "- **Stops** (the command line exits 1) when the token is refused, expires or is revoked, or the endpoint is refused (4003 not permitted, 4004 unknown, 4005 operation not allowed). Get a new token and start again.",
    "- **Keepalive:** a protocol `ping` every 30 s finds a dead connection that the operating system has not noticed yet.",
    "",
    "## Files",
    "",
    ...lang.files.map(([path, what]) => `- \`${path}\` — ${what}`),
    "",
    'Every file starts with a "generated, do not edit" line' +
      (lang.exempt ? ` (except ${lang.exempt})` : "") +
      ": regenerate the client from the portal instead of editing it.",
    "",
  ];
  return lines.join("\n").replace(/\n{3,}/g, "\n\n");
}
