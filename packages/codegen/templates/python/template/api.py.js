import { File } from "@asyncapi/generator-react-sdk";

import { oneLine, snake, typeTree, untypedReason } from "../../_shared/schema-types.js";

const KEYWORDS = new Set(
  "False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case".split(
    " ",
  ),
);
const RESERVED = new Set(["client", "on_message", "on_gap", "from_", "data", "key", "self"]);

/** A Python identifier for a parameter name. */
function ident(name) {
  const id = snake(name);
  return KEYWORDS.has(id) || RESERVED.has(id) ? `${id}_` : id;
}

const isIdentifier = (name) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !KEYWORDS.has(name);

function pyType(t) {
  let out;
  switch (t.kind) {
    case "string":
      out = "str";
      break;
    case "integer":
      out = "int";
      break;
    case "number":
      out = "float";
      break;
    case "boolean":
      out = "bool";
      break;
    case "null":
      return "None";
    case "enum":
      out = `Literal[${t.values.map((v) => JSON.stringify(v)).join(", ")}]`;
      break;
    case "array":
      out = `List[${pyType(t.items)}]`;
      break;
    case "map":
      out = `Dict[str, ${pyType(t.values)}]`;
      break;
    case "object":
      out = t.name;
      break;
    default:
      return "Any";
  }
  return t.nullable ? `Optional[${out}]` : out;
}

function typedDict(object) {
  const lines = [];
  const doc = object.description ? oneLine(object.description) : `A payload object (${object.name}).`;
  if (object.fields.every((f) => isIdentifier(f.jsonName))) {
    lines.push(`class ${object.name}(TypedDict, total=False):`, `    ${pyDoc(doc)}`, "");
    for (const f of object.fields) {
      const type = f.required ? `Required[${pyType(f.type)}]` : pyType(f.type);
      lines.push(`    ${f.jsonName}: ${type}${f.description ? `  # ${oneLine(f.description)}` : ""}`);
    }
  } else {
    // Keys that are not identifiers need the functional form.
    const entries = object.fields.map(
      (f) => `${JSON.stringify(f.jsonName)}: ${f.required ? `Required[${pyType(f.type)}]` : pyType(f.type)}`,
    );
    lines.push(`${object.name} = TypedDict(${JSON.stringify(object.name)}, {${entries.join(", ")}}, total=False)`);
    lines.push(`"""${doc.replaceAll('"""', "'''")}"""`);
  }
  return lines.join("\n");
}

const pyDoc = (text) => `"""${String(text).replaceAll("\\", "\\\\").replaceAll('"""', "'''")}"""`;

function payloadTypes(c) {
  const name = `${c.names.pascal}Payload`;
  if (c.payloadFormat === "text") return { name, code: `${name} = str\n"""UTF-8 text."""` };
  if (c.payloadFormat === "bytes") return { name, code: `${name} = bytes\n"""Binary data (travels base64-encoded)."""` };
  if (!c.schema) return { name, code: `${name} = Any\n"""Any JSON value: ${oneLine(untypedReason(c))}."""` };
  const { root, objects } = typeTree(c.schema, name);
  const blocks = objects.reverse().map(typedDict); // children first: easier to read top-down either way
  if (root.kind !== "object" || root.name !== name) blocks.push(`${name} = ${pyType(root)}`);
  return { name, code: blocks.join("\n\n\n") };
}

export default function Api({ params }) {
  const { model, header } = params.sluice;
  const out = [
    header("#").trimEnd(),
    pyDoc(`Typed functions for each endpoint of ${oneLine(model.title)} v${oneLine(model.version)}.`),
    "from __future__ import annotations",
    "",
    "from typing import Any, Awaitable, Callable, Dict, List, Literal, Optional, Required, TypedDict, Union",
    "",
    "from sluice_client import Ack, Client, From, GapHandler, Message, Subscription, key_path",
    "",
  ];
  const table = [];
  for (const c of model.channels) {
    const { name, code } = payloadTypes(c);
    out.push("", code, "");
    const param = c.parameters[0];
    const arg = param ? ident(param.name) : undefined;
    const prefix = param ? c.address.slice(0, c.address.indexOf("/{")) : undefined;
    const pathExpr = param ? `key_path(${JSON.stringify(prefix)}, ${arg})` : JSON.stringify(c.address);
    const argDoc = param ? `\n\n    ${arg}: ${oneLine(param.description) || "the Kafka record key"}` : "";
    const handlerType = `Callable[[Message[${name}]], Union[None, Awaitable[None]]]`;
    const sig = param ? `client: Client, ${arg}: str, ` : "client: Client, ";
    const fns = { subscribe: "None", publish: "None" };
    if (c.subscribe) {
      const fn = `subscribe_${c.names.snake}`;
      out.push(
        "",
        `async def ${fn}(${sig}on_message: ${handlerType}, *,`,
        `        from_: From = "latest", on_gap: Optional[GapHandler] = None) -> Subscription:`,
        `    ${pyDoc(`Subscribes to ${c.address}${c.description ? `: ${oneLine(c.description)}` : "."}${argDoc}\n\n    on_message gets every message once, in order, across reconnects. from_: "latest" (default), "earliest", {"time": ms} or a Position to resume after. Raises SluiceError when the gateway refuses.\n    `)}`,
        `    return await client.subscribe(${pathExpr}, on_message, from_=from_, on_gap=on_gap)`,
        "",
      );
      fns.subscribe = param
        ? fn
        : `lambda client, _key, on_message, from_="latest", on_gap=None: ${fn}(client, on_message, from_=from_, on_gap=on_gap)`;
    }
    if (c.publish) {
      const fn = `publish_${c.names.snake}`;
      out.push(
        "",
        `async def ${fn}(${sig}data: ${name}) -> Ack:`,
        `    ${pyDoc(`Publishes one message to ${c.address} and returns where Kafka stored it.${argDoc}\n\n    Raises SluiceError: 4022 when the payload does not match the endpoint's schema, 4003 when the token does not permit it.\n    `)}`,
        `    return await client.publish(${pathExpr}, data)`,
        "",
      );
      // The command line passes parsed JSON through; a bytes endpoint sends a JSON string's UTF-8 bytes.
      const value = c.payloadFormat === "bytes" ? "(data.encode() if isinstance(data, str) else data)" : "data";
      fns.publish = param && value === "data" ? fn : `lambda client, key, data: ${fn}(client, ${param ? "key, " : ""}${value})`;
    }
    table.push(
      `    Channel(${JSON.stringify(c.address)}, ${JSON.stringify(c.topic)}, ${c.key === undefined ? "None" : JSON.stringify(c.key)}, ${fns.subscribe}, ${fns.publish}),`,
    );
  }
  out.push(
    "",
    "class Channel:",
    `    ${pyDoc("One endpoint of the API, for the command line: key is None for a parameterised endpoint.")}`,
    "",
    "    def __init__(self, address: str, topic: str, key: Optional[str], subscribe: Any, publish: Any) -> None:",
    "        self.address, self.topic, self.key, self.subscribe, self.publish = address, topic, key, subscribe, publish",
    "",
    "",
    "CHANNELS: List[Channel] = [",
    ...table,
    "]",
    "",
  );
  return <File name="api.py">{out.join("\n")}</File>;
}
