import assert from "node:assert/strict";
import { test } from "node:test";

import { readZip } from "../../../test/zip";
import { zipClient } from "./zip-client";

const modified = new Date("2026-05-04T10:20:30Z");
const files = [
  { path: "README.md", contents: "# Market data\n" },
  { path: "bin/subscribe.sh", contents: "#!/bin/sh\necho ok\n", executable: true },
  { path: "src/types/message.ts", contents: "export type Price = { price: number };\n" },
];

test("every file sits under the folder with its contents and mode", () => {
  const entries = readZip(zipClient(files, { folder: "market-data-1.0.0-curl", modified }));
  assert.deepEqual(
    entries.map((e) => [e.name, new TextDecoder().decode(e.data), e.mode.toString(8)]),
    [
      ["market-data-1.0.0-curl/README.md", "# Market data\n", "100644"],
      ["market-data-1.0.0-curl/bin/subscribe.sh", "#!/bin/sh\necho ok\n", "100755"],
      ["market-data-1.0.0-curl/src/types/message.ts", "export type Price = { price: number };\n", "100644"],
    ],
  );
});

test("the same files give the same bytes", () => {
  const a = zipClient(files, { folder: "x", modified });
  const b = zipClient(files, { folder: "x", modified });
  assert.deepEqual(Buffer.from(a), Buffer.from(b));
});

test("paths that could escape the folder are refused", () => {
  for (const bad of ["../evil.sh", "/etc/passwd", "a/../../b", "a//b", "./a"]) {
    assert.throws(() => zipClient([{ path: bad, contents: "" }], { folder: "x", modified }), /unsafe file path/, bad);
  }
});

test("two files at one path are refused", () => {
  assert.throws(() => zipClient([files[0]!, files[0]!], { folder: "x", modified }), /two files at README.md/);
});
