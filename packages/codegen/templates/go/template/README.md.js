import { File } from "@asyncapi/generator-react-sdk";

import { readme } from "../../_shared/readme.js";
import { modulePath } from "../lib/go.js";

export default function Readme({ params }) {
  const { model } = params.sluice;
  const c = model.channels.find((ch) => ch.subscribe) ?? model.channels[0];
  const text = readme(params.sluice, {
    name: "Go",
    requirements: "Needs Go 1.21+; its one dependency is `github.com/gorilla/websocket` (go.mod, go.sum).",
    build: ["go build -o sluice-client ."],
    run: "./sluice-client",
    functions: (ch) =>
      [ch.subscribe && `sluice.Subscribe${ch.names.pascal}`, ch.publish && `sluice.Publish${ch.names.pascal}`].filter(Boolean),
    library: c?.subscribe
      ? [
          "```go",
          `import "${modulePath(model)}/sluice"`,
          "",
          "client, err := sluice.Connect(ctx, sluice.Options{}) // SLUICE_TOKEN, SLUICE_GATEWAY_URL",
          "if err != nil { return err }",
          "defer client.Close()",
          `sub, err := sluice.Subscribe${c.names.pascal}(ctx, client${c.parameters.length ? `, "${c.examplePath.split("/").slice(2).join("/")}"` : ""}, func(m sluice.TypedMessage[sluice.${c.names.pascal}Payload]) {`,
          "\tfmt.Println(m.Key, m.Payload, m.Position)",
          "}, sluice.SubscribeOptions{})",
          "if err != nil { return err }",
          "<-sub.Ended()",
          "```",
          "",
          "Handlers run on the connection's reader goroutine, in order; `sub.Position()` is the last delivered position (before any message: where delivery starts) (pass it as `sluice.FromPosition(p)` to resume in a new process).",
        ]
      : [],
    files: [
      ["sluice/client.go", "the protocol client: connection, reconnect/resume, subscribe, publish"],
      ["sluice/api.go", "payload types (structs from the JSON Schemas) and one function per endpoint and operation"],
      ["main.go", "the command line"],
      ["go.mod, go.sum", "the module and its one dependency"],
    ],
    exempt: "go.sum, which has no comment syntax",
  });
  return <File name="README.md">{text}</File>;
}
