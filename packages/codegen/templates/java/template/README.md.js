import { File } from "@asyncapi/generator-react-sdk";

import { readme } from "../../_shared/readme.js";

export default function Readme({ params }) {
  const { model } = params.sluice;
  const c = model.channels.find((ch) => ch.subscribe) ?? model.channels[0];
  const text = readme(params.sluice, {
    name: "Java",
    requirements: "Needs JDK 17+ and nothing else: `java.net.http` for the WebSocket and a small JSON reader/writer in the client.",
    build: ["javac -encoding UTF-8 -d build -sourcepath src src/sluice/Main.java"],
    run: "java -cp build sluice.Main",
    functions: (ch) => [ch.subscribe && `Api.subscribe${ch.names.pascal}`, ch.publish && `Api.publish${ch.names.pascal}`].filter(Boolean),
    library: c?.subscribe
      ? [
          "```java",
          "try (SluiceClient client = SluiceClient.connect()) { // SLUICE_TOKEN, SLUICE_GATEWAY_URL",
          `    SluiceClient.Subscription sub = Api.subscribe${c.names.pascal}(client${c.parameters.length ? `, "${c.examplePath.split("/").slice(2).join("/")}"` : ""},`,
          '            (message, payload) -> System.out.println(message.key() + " " + payload),',
          "            new SluiceClient.SubscribeOptions());",
          "    sub.ended().join();",
          "}",
          "```",
          "",
          "Handlers run on the connection's thread, in order; `sub.position()` is the last delivered position (before any message: where delivery starts) (pass it as `From.position(p)` to resume in a new process).",
        ]
      : [],
    files: [
      ["src/sluice/SluiceClient.java", "the protocol client: connection, reconnect/resume, subscribe, publish"],
      ["src/sluice/Api.java", "payload types (records from the JSON Schemas) and one method per endpoint and operation"],
      ["src/sluice/Json.java", "the JSON reader/writer"],
      ["src/sluice/Main.java", "the command line"],
    ],
  });
  return <File name="README.md">{text}</File>;
}
