import { File } from "@asyncapi/generator-react-sdk";

import { readme } from "../../_shared/readme.js";

export default function Readme({ params }) {
  const { model } = params.sluice;
  const c = model.channels.find((ch) => ch.subscribe) ?? model.channels[0];
  const text = readme(params.sluice, {
    name: "Python",
    requirements: "Needs Python 3.11+ and the `websockets` package (pinned in requirements.txt).",
    build: ["python3 -m venv .venv", ".venv/bin/pip install -r requirements.txt"],
    run: ".venv/bin/python main.py",
    functions: (ch) => [ch.subscribe && `subscribe_${ch.names.snake}`, ch.publish && `publish_${ch.names.snake}`].filter(Boolean),
    library: c
      ? [
          "```python",
          "import asyncio",
          "",
          `from api import ${c.subscribe ? `subscribe_${c.names.snake}` : `publish_${c.names.snake}`}`,
          "from sluice_client import Client",
          "",
          "async def main():",
          "    async with Client() as client:  # SLUICE_TOKEN, SLUICE_GATEWAY_URL",
          ...(c.subscribe
            ? [
                `        sub = await subscribe_${c.names.snake}(client, ${c.parameters.length ? `"${c.examplePath.split("/").slice(2).join("/")}", ` : ""}lambda m: print(m.key, m.data, m.position))`,
                "        await sub.wait_ended()",
              ]
            : [
                `        print(await publish_${c.names.snake}(client, ${c.parameters.length ? '"example", ' : ""}${JSON.stringify(c.examplePayload)}))`,
              ]),
          "",
          "asyncio.run(main())",
          "```",
        ]
      : [],
    files: [
      ["sluice_client.py", "the protocol client: connection, reconnect/resume, subscribe, publish"],
      ["api.py", "payload types (TypedDict from the JSON Schemas) and one function per endpoint and operation"],
      ["main.py", "the command line"],
      ["requirements.txt", "websockets, pinned"],
    ],
  });
  return <File name="README.md">{text}</File>;
}
