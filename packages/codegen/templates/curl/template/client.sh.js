import { File } from "@asyncapi/generator-react-sdk";

/** client.sh: the static script in ../static/client.sh with this API's channels filled in. */
export default function ClientScript({ params }) {
  const { model, header, fill, readTemplateFile } = params.sluice;
  const channels = model.channels;
  const q = (s) => `'${s.replaceAll("'", "'\\''")}'`;
  const glob = (address) => address.replace(/\{[^}]+\}/g, "*");
  const pathExpr = (c) => {
    let i = 0;
    return c.address.replace(/\{[^}]+\}/g, () => `$(percent_encode "$${++i}")`);
  };
  const contentTypes = channels.map((c) => `    ${glob(c.address)}) echo ${q(c.contentType)} ;;`);
  const usage = [];
  const commands = [];
  for (const c of channels) {
    const params = c.parameters.map((p) => p.name.toUpperCase());
    const n = params.length;
    const args = params.join(" ");
    const check = n ? `[ $# -ge ${n} ] || die "usage: %s ${args}"; ` : "";
    if (c.subscribe) {
      const name = `subscribe-${c.names.kebab}`;
      usage.push(`  ${(`${name} ${args}`).padEnd(40)} subscribe to ${c.address}`);
      commands.push(`  ${name}) ${check.replace("%s", name)}subscribe "${pathExpr(c)}" ;;`);
    }
    if (c.publish) {
      const name = `publish-${c.names.kebab}`;
      usage.push(`  ${(`${name} ${[args, "JSON"].filter(Boolean).join(" ")}`).padEnd(40)} publish to ${c.address}`);
      const shift = n ? `shift ${n}; ` : "";
      commands.push(
        `  ${name}) [ $# -ge ${n + 1} ] || die "usage: ${name} ${[args, "JSON"].filter(Boolean).join(" ")}"; p="${pathExpr(c)}"; ${shift}publish "$p" "$1" ;;`,
      );
    }
  }
  const script = fill(readTemplateFile("static/client.sh"), {
    HEADER: header("#").trimEnd(),
    TITLE: model.title.replace(/[\r\n]+/g, " "),
    GATEWAY_URL: model.gatewayUrls.join(",").replaceAll("'", ""),
    EXAMPLE_PATH: channels[0] ? channels[0].examplePath : "/topic/key",
    CONTENT_TYPES: contentTypes.join("\n"),
    USAGE: usage.length ? `\n${usage.join("\n")}` : "",
    COMMANDS: commands.join("\n"),
  });
  return (
    <File name="client.sh" permissions={0o755}>
      {script}
    </File>
  );
}
