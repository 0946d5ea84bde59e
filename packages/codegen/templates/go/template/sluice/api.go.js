import { File } from "@asyncapi/generator-react-sdk";

import { camel, oneLine, pascal, typeTree, untypedReason } from "../../../_shared/schema-types.js";
import { goHeader } from "../../lib/go.js";

const KEYWORDS = new Set(
  "break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var any ctx c handler opts data key".split(
    " ",
  ),
);

function ident(name) {
  const id = camel(name);
  return KEYWORDS.has(id) ? `${id}Value` : id;
}

function goType(t, optional) {
  let base;
  let pointer = optional || t.nullable;
  switch (t.kind) {
    case "string":
    case "enum":
      base = "string";
      break;
    case "integer":
      base = "int64";
      break;
    case "number":
      base = "float64";
      break;
    case "boolean":
      base = "bool";
      break;
    case "array":
      base = `[]${goType(t.items, false)}`;
      pointer = false; // nil already means absent
      break;
    case "map":
      base = `map[string]${goType(t.values, false)}`;
      pointer = false;
      break;
    case "object":
      base = t.name;
      break;
    default:
      return "json.RawMessage";
  }
  return pointer ? `*${base}` : base;
}

function struct(object) {
  const rows = [];
  const used = new Set();
  for (const f of object.fields) {
    let name = pascal(f.jsonName);
    for (let i = 2; used.has(name); i++) name = `${pascal(f.jsonName)}${i}`;
    used.add(name);
    const optional = !f.required;
    const tag = `\`json:"${f.jsonName.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}${optional ? ",omitempty" : ""}"\``;
    const notes = [
      f.description && oneLine(f.description),
      f.type.kind === "enum" && `one of ${f.type.values.map((v) => JSON.stringify(v)).join(", ")}`,
    ].filter(Boolean);
    rows.push({ name, type: goType(f.type, optional), tag, comment: notes.length ? `// ${notes.join("; ")}` : "" });
  }
  return [
    `// ${object.name} is a payload object${object.description ? `: ${oneLine(object.description)}` : ""}.`,
    `type ${object.name} struct {`,
    ...alignFields(rows),
    "}",
  ].join("\n");
}

// gofmt's layout (text/tabwriter): names and types align over the whole block;
// tags align only over runs of consecutive lines that carry a comment after them.
function alignFields(rows) {
  const nameWidth = Math.max(...rows.map((r) => r.name.length));
  const typeWidth = Math.max(...rows.map((r) => r.type.length));
  const tagWidth = new Array(rows.length).fill(0);
  for (let i = 0; i < rows.length; ) {
    if (!rows[i].comment) {
      i++;
      continue;
    }
    let j = i;
    while (j < rows.length && rows[j].comment) j++;
    const width = Math.max(...rows.slice(i, j).map((r) => r.tag.length));
    for (let k = i; k < j; k++) tagWidth[k] = width;
    i = j;
  }
  return rows.map(
    (r, i) =>
      `\t${r.name.padEnd(nameWidth)} ${r.type.padEnd(typeWidth)} ${r.comment ? `${r.tag.padEnd(tagWidth[i])} ${r.comment}` : r.tag}`,
  );
}

function payloadTypes(c) {
  const name = `${c.names.pascal}Payload`;
  if (c.payloadFormat === "text") return { name, code: `// ${name} is UTF-8 text.\ntype ${name} = string` };
  if (c.payloadFormat === "bytes") return { name, code: `// ${name} is binary data (it travels base64-encoded).\ntype ${name} = []byte` };
  if (!c.schema) return { name, code: `// ${name} is any JSON value: ${oneLine(untypedReason(c))}.\ntype ${name} = json.RawMessage` };
  const { root, objects } = typeTree(c.schema, name);
  const blocks = objects.map(struct);
  if (root.kind !== "object" || root.name !== name)
    blocks.unshift(`// ${name} is a payload of ${c.address}.\ntype ${name} = ${goType(root, false)}`);
  return { name, code: blocks.join("\n\n") };
}

export default function Api({ params }) {
  const { model } = params.sluice;
  const out = [goHeader(params.sluice), "", "package sluice", "", 'import (\n\t"context"\n\t"encoding/json"\n)', ""];
  const table = [];
  for (const c of model.channels) {
    const { name, code } = payloadTypes(c);
    out.push(code, "");
    const param = c.parameters[0];
    const arg = param ? ident(param.name) : undefined;
    const prefix = param ? c.address.slice(0, c.address.indexOf("/{")) : undefined;
    const pathExpr = param ? `KeyPath(${JSON.stringify(prefix)}, ${arg})` : JSON.stringify(c.address);
    const argSig = param ? `, ${arg} string` : "";
    const argDoc = param ? `\n// ${arg}: ${oneLine(param.description) || "the Kafka record key"}` : "";
    const entry = [
      `\t{`,
      `\t\tAddress: ${JSON.stringify(c.address)}, Topic: ${JSON.stringify(c.topic)}, Key: ${JSON.stringify(c.key ?? "")},`,
    ];
    if (c.subscribe) {
      const fn = `Subscribe${c.names.pascal}`;
      out.push(
        `// ${fn} subscribes to ${c.address}${c.description ? `: ${oneLine(c.description)}` : "."}${argDoc}`,
        "// The handler gets every message once, in order, across reconnects, with the payload decoded.",
        `func ${fn}(ctx context.Context, c *Client${argSig}, handler func(TypedMessage[${name}]), opts SubscribeOptions) (*Subscription, error) {`,
        `\treturn c.Subscribe(ctx, ${pathExpr}, Typed(handler), opts)`,
        "}",
        "",
      );
      entry.push(
        `\t\tSubscribe: func(ctx context.Context, c *Client, key string, handler func(Message), opts SubscribeOptions) (*Subscription, error) {`,
        `\t\t\treturn ${fn}(ctx, c${param ? ", key" : ""}, func(m TypedMessage[${name}]) { handler(m.Message) }, opts)`,
        `\t\t},`,
      );
    }
    if (c.publish) {
      const fn = `Publish${c.names.pascal}`;
      out.push(
        `// ${fn} publishes one message to ${c.address} and returns where Kafka stored it.${argDoc}`,
        "// An *Error with code 4022 means the payload does not match the endpoint's schema.",
        `func ${fn}(ctx context.Context, c *Client${argSig}, data ${name}) (Ack, error) {`,
        `\treturn c.Publish(ctx, ${pathExpr}, data)`,
        "}",
        "",
      );
      // The command line passes the JSON through untouched (no round trip through
      // a struct that could drop fields); a bytes endpoint sends a JSON string's UTF-8 bytes.
      const raw =
        c.payloadFormat === "bytes"
          ? `\t\t\tvar text string\n\t\t\tif err := json.Unmarshal(data, &text); err != nil {\n\t\t\t\treturn Ack{}, newError(CodeBadFrame, "", "a bytes endpoint takes a JSON string: %v", err)\n\t\t\t}\n\t\t\treturn c.Publish(ctx, ${param ? `KeyPath(${JSON.stringify(prefix)}, key)` : JSON.stringify(c.address)}, []byte(text))`
          : `\t\t\treturn c.Publish(ctx, ${param ? `KeyPath(${JSON.stringify(prefix)}, key)` : JSON.stringify(c.address)}, data)`;
      entry.push(`\t\tPublish: func(ctx context.Context, c *Client, key string, data json.RawMessage) (Ack, error) {`, raw, `\t\t},`);
    }
    entry.push(`\t},`);
    table.push(...entry);
  }
  out.push(
    "// Channel describes one endpoint of the API for the command line (Key is empty for a parameterised endpoint).",
    "type Channel struct {",
    "\tAddress   string",
    "\tTopic     string",
    "\tKey       string",
    "\tSubscribe func(ctx context.Context, c *Client, key string, handler func(Message), opts SubscribeOptions) (*Subscription, error)",
    "\tPublish   func(ctx context.Context, c *Client, key string, data json.RawMessage) (Ack, error)",
    "}",
    "",
    "// Channels lists the endpoints of the API.",
    "var Channels = []Channel{",
    ...table,
    "}",
    "",
  );
  return <File name="api.go">{out.join("\n")}</File>;
}
