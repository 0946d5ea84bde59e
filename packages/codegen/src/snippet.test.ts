// Snippets for every language and channel: the right operations, the example
// path, no token, and valid syntax where a cheap checker exists.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { Script } from "node:vm";

import { languages } from "./languages.js";
import { snippet } from "./snippet.js";

const documentText = readFileSync(new URL("../test/fixtures/market-data.asyncapi.json", import.meta.url), "utf8");
const scratch = mkdtempSync(join(tmpdir(), "sluice-snippets-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

const has = (tool: string) => {
  try {
    execFileSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};

test("every language has a snippet per channel with the allowed operations and no token", () => {
  for (const { id } of languages) {
    const both = snippet(documentText, id, "/prices/{symbol}");
    const subOnly = snippet(documentText, id, "/orders/eu");
    assert.match(both, /\/prices\/AAPL/, `${id}: example path`);
    assert.match(subOnly, /\/orders\/eu/, `${id}: exact path`);
    assert.match(both, /subscribe/i, `${id}: subscribes`);
    assert.match(both, /publish|POST/i, `${id}: publishes`);
    assert.doesNotMatch(subOnly, /"publish"|publish\(|-X POST/, `${id}: /orders/eu is subscribe-only`);
    for (const text of [both, subOnly]) {
      assert.match(text, /SLUICE_TOKEN|getTokenFromYourBackend/, `${id}: token from the environment or the app`);
      assert.doesNotMatch(text, /eyJ[A-Za-z0-9_-]{10,}/, `${id}: no token`);
    }
  }
  assert.throws(() => snippet(documentText, "curl", "/nope"), /No channel with address "\/nope"/);
  assert.throws(() => snippet(documentText, "cobol" as never, "/orders/eu"), /Unknown language "cobol"/);
});

test("snippets are valid code (node, sh, python, gofmt, javac where installed)", () => {
  for (const address of ["/prices/{symbol}", "/orders/eu"]) {
    // TypeScript/JavaScript use top-level await: check them as the body of an async function.
    new Script(`(async () => {\n${snippet(documentText, "javascript", address)}\n})`);
    const ts = snippet(documentText, "typescript", address)
      .replace(/^import .*$/gm, "")
      .replace("process.env.SLUICE_TOKEN!", "process.env.SLUICE_TOKEN");
    new Script(`(async (connect, WebSocket) => {\n${ts}\n})`);
    const write = (name: string, text: string) => {
      const path = join(scratch, name);
      writeFileSync(path, text);
      return path;
    };
    execFileSync("sh", ["-n", write("snippet.sh", snippet(documentText, "curl", address))]);
    if (has("python3")) execFileSync("python3", ["-m", "py_compile", write("snippet.py", snippet(documentText, "python", address))]);
    if (has("gofmt"))
      assert.equal(
        execFileSync("gofmt", ["-l", write("snippet.go", snippet(documentText, "go", address))], { encoding: "utf8" }),
        "",
        "gofmt-clean",
      );
    if (has("javac"))
      execFileSync("javac", ["-d", join(scratch, "classes"), write("Snippet.java", snippet(documentText, "java", address))]);
  }
});
