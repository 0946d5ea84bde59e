import { File } from "@asyncapi/generator-react-sdk";

/** src/cli.ts: the static CLI in ../static/cli.ts with this API's client class and channel commands. */
export default function Cli({ params }) {
  const { model, header, fill, readTemplateFile } = params.sluice;
  const usage = [];
  const commands = [];
  for (const c of model.channels) {
    const args = c.parameters.map((p) => p.name.toUpperCase());
    const n = args.length;
    for (const op of ["subscribe", "publish"]) {
      if (!c[op]) continue;
      const name = `${op}-${c.names.kebab}`;
      const shown = [name, ...args, ...(op === "publish" ? ["JSON"] : [])].join(" ");
      usage.push(`  ${shown.padEnd(34)} ${op} ${c.address}`);
      commands.push(`  ${JSON.stringify(name)}: [${n}, paths.${c.names.camel} as (...args: string[]) => string, ${JSON.stringify(op)}],`);
    }
  }
  const text = fill(readTemplateFile("static/cli.ts"), {
    HEADER: header("//").trimEnd(),
    CLIENT: `${model.names.pascal}Client`,
    USAGE: usage.join("\n").replaceAll("`", "\\`").replaceAll("${", "\\${"),
    COMMANDS: commands.join("\n"),
    EXAMPLE_PATH: JSON.stringify(model.channels[0] ? model.channels[0].examplePath : "/topic/key"),
  });
  return <File name="cli.ts">{text}</File>;
}
