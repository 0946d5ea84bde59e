// Short copy-paste snippets per channel and language: plain string templates
// over the model, no generator run, so the portal can render them per request.
import { type LanguageId, languageInfo } from "./languages.js";
import { buildModel, channelByAddress } from "./model.js";
import type { ApiModel, ChannelModel } from "./model.js";

/** A short copy-paste snippet for one channel (endpoint address) of the document. */
export function snippet(document: string | object, language: LanguageId, channelAddress: string): string {
  languageInfo(language);
  const model = buildModel(document);
  const channel = channelByAddress(model, channelAddress);
  return SNIPPETS[language](model, channel);
}

const SNIPPETS: Record<LanguageId, (model: ApiModel, channel: ChannelModel) => string> = {
  typescript: typescriptSnippet,
  javascript: javascriptSnippet,
  python: pythonSnippet,
  go: goSnippet,
  java: javaSnippet,
  curl: curlSnippet,
};

// Each snippet works on its own (copy, paste, run) and uses the example path
// (`/prices/AAPL` for `/prices/{symbol}`); the token always comes from the
// environment or the app, never from the snippet.
const lit = (s: string) => JSON.stringify(s);
const subscribeFrame = (c: ChannelModel) => JSON.stringify({ type: "subscribe", id: "2", endpoint: c.examplePath });
const publishFrame = (c: ChannelModel) => JSON.stringify({ type: "publish", id: "3", endpoint: c.examplePath, data: c.examplePayload });
const about = (c: ChannelModel) => {
  const params = c.parameters.map((p) => `{${p.name}}`).join(", ");
  return `${c.address}${params ? ` (fill in ${params})` : ""}: ${[c.subscribe && "subscribe", c.publish && "publish"].filter(Boolean).join(" + ")}`;
};

function typescriptSnippet(model: ApiModel, c: ChannelModel): string {
  const lines = [
    `// ${about(c)}`,
    'import { connect } from "@sluice/sdk";',
    'import { WebSocket } from "ws"; // Node 20 only: browsers and Node 22+ have a global WebSocket',
    "",
    `const client = await connect(${lit(model.wsUrl)}, { token: process.env.SLUICE_TOKEN!, WebSocket });`,
  ];
  if (c.subscribe) lines.push(`client.subscribe(${lit(c.examplePath)}, (m) => console.log(m.data, m.position));`);
  if (c.publish)
    lines.push(
      `const ack = await client.publish(${lit(c.examplePath)}, ${JSON.stringify(c.examplePayload)});`,
      "console.log(ack); // { endpoint, epoch, partition, seq }",
    );
  if (!c.subscribe) lines.push("await client.close();");
  return `${lines.join("\n")}\n`;
}

function javascriptSnippet(model: ApiModel, c: ChannelModel): string {
  const lines = [
    `// ${about(c)} — plain browser JavaScript, no library`,
    "const token = await getTokenFromYourBackend(); // never hard-code a token in a page",
    `const ws = new WebSocket(${lit(model.wsUrl)}, "sluice.v1");`,
    'ws.onopen = () => ws.send(JSON.stringify({ type: "auth", id: "1", token }));',
    "ws.onmessage = (event) => {",
    "  const frame = JSON.parse(event.data);",
    '  if (frame.type === "authenticated") {',
  ];
  if (c.subscribe) lines.push(`    ws.send(JSON.stringify(${subscribeFrame(c)}));`);
  if (c.publish) lines.push(`    ws.send(JSON.stringify(${publishFrame(c)}));`);
  lines.push("  }");
  if (c.subscribe) lines.push('  if (frame.type === "message") console.log(frame.data, frame.partition, frame.seq);');
  if (c.publish) lines.push('  if (frame.type === "published") console.log("stored at", frame.partition, frame.seq);');
  lines.push('  if (frame.type === "error") console.error(frame.code, frame.message);', "};");
  return `${lines.join("\n")}\n`;
}

function pythonSnippet(model: ApiModel, c: ChannelModel): string {
  const lines = [
    `# ${about(c)} — pip install websockets`,
    "import asyncio, json, os",
    "import websockets",
    "",
    "async def main():",
    `    async with websockets.connect(${lit(model.wsUrl)}, subprotocols=["sluice.v1"]) as ws:`,
    '        await ws.send(json.dumps({"type": "auth", "id": "1", "token": os.environ["SLUICE_TOKEN"]}))',
    '        print(json.loads(await ws.recv()))  # {"type": "authenticated", ...}',
  ];
  if (c.publish) {
    lines.push(
      `        await ws.send(json.dumps({"type": "publish", "id": "3", "endpoint": ${lit(c.examplePath)}, "data": json.loads(${lit(JSON.stringify(c.examplePayload))})}))`,
    );
  }
  if (c.subscribe) {
    lines.push(`        await ws.send(json.dumps({"type": "subscribe", "id": "2", "endpoint": ${lit(c.examplePath)}}))`);
    lines.push(
      "        async for raw in ws:",
      "            frame = json.loads(raw)",
      '            if frame["type"] == "message":',
      '                print(frame["data"], frame["partition"], frame["seq"])',
      "            else:",
      "                print(frame)",
    );
  } else {
    lines.push('        print(json.loads(await ws.recv()))  # {"type": "published", "partition": ..., "seq": ...}');
  }
  lines.push("", "asyncio.run(main())");
  return `${lines.join("\n")}\n`;
}

function goSnippet(model: ApiModel, c: ChannelModel): string {
  const lines = [
    `// ${about(c)} — go get github.com/gorilla/websocket`,
    "package main",
    "",
    "import (",
    '\t"fmt"',
    '\t"log"',
    '\t"net/http"',
    '\t"os"',
    "",
    '\t"github.com/gorilla/websocket"',
    ")",
    "",
    "func main() {",
    '\tdialer := websocket.Dialer{Subprotocols: []string{"sluice.v1"}}',
    '\theader := http.Header{"Authorization": {"Bearer " + os.Getenv("SLUICE_TOKEN")}}',
    `\tconn, _, err := dialer.Dial(${lit(model.wsUrl)}, header)`,
    "\tif err != nil {",
    "\t\tlog.Fatal(err)",
    "\t}",
    "\tdefer conn.Close()",
  ];
  if (c.publish) lines.push(`\tconn.WriteMessage(websocket.TextMessage, []byte(${goString(publishFrame(c))}))`);
  if (c.subscribe) lines.push(`\tconn.WriteMessage(websocket.TextMessage, []byte(${goString(subscribeFrame(c))}))`);
  lines.push(
    "\tfor {",
    "\t\tvar frame map[string]any",
    "\t\tif err := conn.ReadJSON(&frame); err != nil {",
    "\t\t\tlog.Fatal(err)",
    "\t\t}",
    '\t\tfmt.Println(frame["type"], frame["data"], frame["seq"]) // message, published, error, …',
    "\t}",
    "}",
  );
  return `${lines.join("\n")}\n`;
}

/** A Go raw string when it can be one (readable JSON), else an interpreted one (JSON string syntax is valid Go). */
const goString = (s: string) => (s.includes("`") ? lit(s) : `\`${s}\``);

function javaSnippet(model: ApiModel, c: ChannelModel): string {
  const lines = [
    `// ${about(c)} — JDK 11+ only (java.net.http)`,
    "import java.net.URI;",
    "import java.net.http.HttpClient;",
    "import java.net.http.WebSocket;",
    "import java.util.concurrent.CompletionStage;",
    "",
    "public class Snippet {",
    "    public static void main(String[] args) throws Exception {",
    "        WebSocket ws = HttpClient.newHttpClient().newWebSocketBuilder()",
    '            .subprotocols("sluice.v1")',
    '            .header("Authorization", "Bearer " + System.getenv("SLUICE_TOKEN"))',
    `            .buildAsync(URI.create(${lit(model.wsUrl)}), new WebSocket.Listener() {`,
    "                @Override",
    "                public CompletionStage<?> onText(WebSocket socket, CharSequence frame, boolean last) {",
    '                    System.out.println(frame); // {"type":"message",…,"data":…}',
    "                    socket.request(1);",
    "                    return null;",
    "                }",
    "            }).join();",
  ];
  if (c.publish) lines.push(`        ws.sendText(${lit(publishFrame(c))}, true);`);
  if (c.subscribe) lines.push(`        ws.sendText(${lit(subscribeFrame(c))}, true);`);
  lines.push("        Thread.currentThread().join(); // keep receiving", "    }", "}");
  return `${lines.join("\n")}\n`;
}

const shq = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

function curlSnippet(model: ApiModel, c: ChannelModel): string {
  const lines = [`# ${about(c)}`, "export SLUICE_TOKEN='<your app token>'", ""];
  if (c.subscribe) {
    lines.push(`# Subscribe (Server-Sent Events; resume with -H "Last-Event-ID: <id of the last event>")`);
    lines.push(`curl -N -H "Authorization: Bearer $SLUICE_TOKEN" ${shq(model.sseUrl + c.examplePath)}`);
  }
  if (c.publish) {
    if (c.subscribe) lines.push("");
    lines.push("# Publish one message");
    lines.push(
      `curl -X POST -H "Authorization: Bearer $SLUICE_TOKEN" -H ${shq(`Content-Type: ${c.contentType}`)} \\`,
      `  --data-raw ${shq(payloadText(c))} ${shq(model.publishUrl + c.examplePath)}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** The example payload as the body text an HTTP publish sends. */
function payloadText(c: ChannelModel): string {
  return c.payloadFormat === "json" ? JSON.stringify(c.examplePayload) : String(c.examplePayload);
}
