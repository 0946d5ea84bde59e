// TypeScript message types from the endpoints' JSON Schemas, with
// json-schema-to-typescript (offline: the portal's schemas only have local refs).
// Each channel's declarations are prefixed with the channel's name, so two
// endpoints whose schemas both define `$defs/currency` or share a title cannot clash.
import { compile } from "json-schema-to-typescript";

import type { ApiModel, ChannelModel } from "../model.js";

/** `PricesSymbolMessage` — the payload type name of a channel. */
export const messageTypeName = (channel: ChannelModel) => `${channel.names.pascal}Message`;

/** The body of src/types.ts (without the header): one exported type per channel. */
export async function messageTypes(model: ApiModel): Promise<string> {
  const parts: string[] = [];
  for (const channel of model.channels) {
    const name = messageTypeName(channel);
    const doc = `// ${channel.address} (${sourceOf(channel)})\n`;
    if (channel.payloadFormat === "text") parts.push(`${doc}export type ${name} = string;\n`);
    else if (channel.payloadFormat === "bytes") parts.push(`${doc}export type ${name} = Uint8Array;\n`);
    else if (!channel.schema) parts.push(`${doc}export type ${name} = unknown;\n`);
    else parts.push(doc + (await compileSchema(channel.schema, name, channel.names.pascal)));
  }
  return parts.join("\n");
}

function sourceOf(channel: ChannelModel): string {
  const r = channel.registry;
  if (r) {
    const version = r.version === undefined ? "" : ` version ${r.version}`;
    // The subject is free text: only safe characters reach the line comment.
    return `${r.format} records of registry subject ${r.subject.replace(/[^\w.:@-]/g, "?")}${version}, served as JSON${channel.schema ? "" : "; schema unavailable"}`;
  }
  return `${channel.payloadFormat}${channel.schema ? ", from its JSON Schema" : ""}`;
}

// json-schema-to-typescript normalises names (`Nc2g4m` → `Nc2G4M`), so it gets a
// placeholder prefix that it leaves alone, replaced by the channel's name afterwards.
const PLACEHOLDER = "SluiceChannelPlaceholder";

async function compileSchema(schema: Record<string, unknown>, name: string, prefix: string): Promise<string> {
  // The root's own title would otherwise name the type (and could clash between channels).
  const { title: _title, $schema: _dialect, $id: _id, ...root } = schema;
  const rootName = `${PLACEHOLDER}Message`;
  const ts = await compile(root as never, rootName, {
    bannerComment: "",
    additionalProperties: false,
    unknownAny: true,
    strictIndexSignatures: true,
    format: true,
    style: { singleQuote: false, printWidth: 120 },
    declareExternallyReferenced: true,
    $refOptions: { resolve: { external: false, file: false, http: false } } as never,
    customName: (s, keyName) => {
      if (s === root || s === schema) return rootName;
      const base = typeof s.title === "string" ? s.title : keyName;
      return base ? PLACEHOLDER + base.charAt(0).toUpperCase() + base.slice(1) : undefined;
    },
  });
  return ts.replace(new RegExp(`\\b${PLACEHOLDER}(\\w*)`, "g"), (_, rest: string) => (rest === "Message" ? name : prefix + rest));
}
