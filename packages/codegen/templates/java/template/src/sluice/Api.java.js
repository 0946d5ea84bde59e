import { File } from "@asyncapi/generator-react-sdk";

import { camel, oneLine, typeTree } from "../../../../_shared/schema-types.js";

const KEYWORDS = new Set(
  (
    "abstract assert boolean break byte case catch char class const continue default do double else enum extends final finally float for goto if implements import instanceof int interface long native new package private protected public return short static strictfp super switch synchronized this throw throws transient try void volatile while true false null var yield record sealed permits " +
    // record components may not be named like Object's methods; and the generated methods' own parameters
    "clone finalize getClass hashCode notify notifyAll toString wait client handler options data key json"
  ).split(" "),
);

function ident(name) {
  const id = camel(name);
  return KEYWORDS.has(id) ? `${id}Value` : id;
}

/** Javadoc-safe text. */
const doc = (text) => oneLine(text).replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll("@", "&#64;");

function javaType(t) {
  switch (t.kind) {
    case "string":
    case "enum":
      return "String";
    case "integer":
      return "Long";
    case "number":
      return "Double";
    case "boolean":
      return "Boolean";
    case "array":
      return `List<${javaType(t.items)}>`;
    case "map":
      return `Map<String, ${javaType(t.values)}>`;
    case "object":
      return t.name;
    default:
      return "Object";
  }
}

/** An expression converting the decoded JSON value `v` to the Java type of t (lambda variables named by depth). */
function convert(t, v, depth = 0) {
  const x = `x${depth}`;
  switch (t.kind) {
    case "string":
    case "enum":
      return `Json.asString(${v})`;
    case "integer":
      return `Json.asLong(${v})`;
    case "number":
      return `Json.asDouble(${v})`;
    case "boolean":
      return `Json.asBoolean(${v})`;
    case "array":
      return `Json.asList(${v}, ${x} -> ${convert(t.items, x, depth + 1)})`;
    case "map":
      return `Json.asMap(${v}, ${x} -> ${convert(t.values, x, depth + 1)})`;
    case "object":
      return `${t.name}.fromJson(${v})`;
    default:
      return v;
  }
}

function record(object) {
  const used = new Set();
  const fields = object.fields.map((f) => {
    let name = ident(f.jsonName);
    for (let i = 2; used.has(name); i++) name = `${ident(f.jsonName)}${i}`;
    used.add(name);
    return { ...f, ident: name };
  });
  const lines = [
    "    /**",
    `     * ${object.description ? doc(object.description) : "A payload object."}`,
    ...fields.map(
      (f) =>
        `     * @param ${f.ident} {@code ${doc(f.jsonName)}}${f.required ? " (required)" : ""}${f.description ? `: ${doc(f.description)}` : ""}${f.type.kind === "enum" ? ` one of ${doc(f.type.values.map((v) => JSON.stringify(v)).join(", "))}` : ""}`,
    ),
    "     */",
    `    public record ${object.name}(${fields.map((f) => `${javaType(f.type)} ${f.ident}`).join(", ")}) implements Json.JsonValue {`,
    "        /** Reads a decoded JSON value; null when it is not an object (a field that does not fit is null). */",
    `        public static ${object.name} fromJson(Object json) {`,
    "            if (!(json instanceof Map<?, ?> m)) return null;",
    `            return new ${object.name}(${fields.map((f) => convert(f.type, `m.get(${JSON.stringify(f.jsonName)})`)).join(", ")});`,
    "        }",
    "",
    "        @Override",
    "        public Object toJson() {",
    "            Map<String, Object> m = new LinkedHashMap<>();",
    ...fields.map((f) => `            if (${f.ident} != null) m.put(${JSON.stringify(f.jsonName)}, ${f.ident});`),
    "            return m;",
    "        }",
    "    }",
  ];
  return lines.join("\n");
}

function payloadTypes(c) {
  const name = `${c.names.pascal}Payload`;
  if (c.payloadFormat === "text") return { type: "String", decode: (v) => `Json.asString(${v})`, blocks: [] };
  if (c.payloadFormat === "bytes") return { type: "byte[]", decode: (v) => `(${v} instanceof byte[] b ? b : null)`, blocks: [] };
  if (!c.schema) return { type: "Object", decode: (v) => v, blocks: [] };
  const { root, objects } = typeTree(c.schema, name);
  return { type: javaType(root), decode: (v) => convert(root, v), blocks: objects.map(record) };
}

export default function Api({ params }) {
  const { model, header } = params.sluice;
  const out = [
    header("//").trimEnd(),
    "package sluice;",
    "",
    "import java.util.LinkedHashMap;",
    "import java.util.List;",
    "import java.util.Map;",
    "import java.util.function.BiConsumer;",
    "",
    `/** Typed functions and payload types for each endpoint of ${doc(model.title)} v${doc(model.version)}. */`,
    "public final class Api {",
    "    private Api() {}",
    "",
  ];
  const table = [];
  for (const c of model.channels) {
    const { type, decode, blocks } = payloadTypes(c);
    for (const b of blocks) out.push(b, "");
    const param = c.parameters[0];
    const arg = param ? ident(param.name) : undefined;
    const prefix = param ? c.address.slice(0, c.address.indexOf("/{")) : undefined;
    const pathExpr = param ? `SluiceClient.Paths.keyPath(${JSON.stringify(prefix)}, ${arg})` : JSON.stringify(c.address);
    const argSig = param ? `, String ${arg}` : "";
    const argDoc = param ? [`     * @param ${arg} ${doc(param.description) || "the Kafka record key"}`] : [];
    const subscribe = c.subscribe ? `Api::subscribe${c.names.pascal}Raw` : "null";
    let publish = "null";
    if (c.subscribe) {
      const fn = `subscribe${c.names.pascal}`;
      out.push(
        "    /**",
        `     * Subscribes to {@code ${doc(c.address)}}${c.description ? `: ${doc(c.description)}` : "."}`,
        "     * The handler gets every message once, in order, across reconnects, with its payload decoded",
        "     * (null when a record does not fit the payload type).",
        ...argDoc,
        "     */",
        `    public static SluiceClient.Subscription ${fn}(SluiceClient client${argSig}, BiConsumer<SluiceClient.Message, ${type}> handler,`,
        "            SluiceClient.SubscribeOptions options) throws SluiceClient.SluiceException {",
        `        return client.subscribe(${pathExpr}, m -> handler.accept(m, ${decode("m.data()")}), options);`,
        "    }",
        "",
        `    static SluiceClient.Subscription ${fn}Raw(SluiceClient client, String key, java.util.function.Consumer<SluiceClient.Message> handler,`,
        "            SluiceClient.SubscribeOptions options) throws SluiceClient.SluiceException {",
        `        return ${fn}(client${param ? ", key" : ""}, (m, payload) -> handler.accept(m), options);`,
        "    }",
        "",
      );
    }
    if (c.publish) {
      const fn = `publish${c.names.pascal}`;
      out.push(
        "    /**",
        `     * Publishes one message to {@code ${doc(c.address)}} and returns where Kafka stored it.`,
        ...argDoc,
        "     * @throws SluiceClient.SluiceException code 4022 when the payload does not match the endpoint's schema",
        "     */",
        `    public static SluiceClient.Ack ${fn}(SluiceClient client${argSig}, ${type} data) throws SluiceClient.SluiceException {`,
        `        return client.publish(${pathExpr}, data);`,
        "    }",
        "",
        // The command line passes the parsed JSON through untouched; a bytes endpoint sends a JSON string's UTF-8 bytes.
        `    static SluiceClient.Ack ${fn}Raw(SluiceClient client, String key, Object data) throws SluiceClient.SluiceException {`,
        `        String path = ${param ? `SluiceClient.Paths.keyPath(${JSON.stringify(prefix)}, key)` : JSON.stringify(c.address)};`,
        c.payloadFormat === "bytes"
          ? `        return client.publish(path, data instanceof String s ? s.getBytes(java.nio.charset.StandardCharsets.UTF_8) : data);`
          : "        return client.publish(path, data);",
        "    }",
        "",
      );
      publish = `Api::${fn}Raw`;
    }
    table.push(
      `            new Channel(${JSON.stringify(c.address)}, ${JSON.stringify(c.topic)}, ${c.key === undefined ? "null" : JSON.stringify(c.key)}, ${subscribe}, ${publish})`,
    );
  }
  out.push(
    "    /** One endpoint of the API, for the command line: key is null for a parameterised endpoint. */",
    "    public record Channel(String address, String topic, String key, Subscriber subscribe, Publisher publish) {}",
    "",
    "    public interface Subscriber {",
    "        SluiceClient.Subscription subscribe(SluiceClient client, String key, java.util.function.Consumer<SluiceClient.Message> handler,",
    "                SluiceClient.SubscribeOptions options) throws SluiceClient.SluiceException;",
    "    }",
    "",
    "    public interface Publisher {",
    "        SluiceClient.Ack publish(SluiceClient client, String key, Object data) throws SluiceClient.SluiceException;",
    "    }",
    "",
    "    /** The endpoints of the API. */",
    "    public static final List<Channel> CHANNELS = List.of(",
    `${table.join(",\n")});`,
    "}",
    "",
  );
  return <File name="Api.java">{out.join("\n")}</File>;
}
