// Registry-backed endpoints (avro, protobuf; see test/fixtures/make-registry-sample.ts):
// the JSON Schema the portal converted from the registry schema reaches the
// message types of every language, and the sample payloads fit it. Each
// language's toolchain checks the types where it is cheap (tsc on types.ts,
// py_compile, gofmt + go vet, javac -Werror).
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";

import { scratchFolder, writeTree as writeScratchTree } from "./scratch-tree.js";
import { buildModel, generateClient, type GeneratedFile } from "../src/index.js";

const documentText = readFileSync(new URL("./fixtures/registry.asyncapi.json", import.meta.url), "utf8");
const scratch = scratchFolder("registry");
const writeTree = (name: string, files: GeneratedFile[]) => writeScratchTree(scratch, name, files);
const workspace = fileURLToPath(new URL("../../../", import.meta.url));
const text = (files: GeneratedFile[], path: string) => files.find((f) => f.path === path)!.contents;
const run = (cmd: string, args: string[], cwd: string) =>
  spawnSync(cmd, args, { cwd, encoding: "utf8", env: { ...process.env, GOTOOLCHAIN: "local" } });

describe("registry endpoints", () => {
  test("the model: registry source, the converted schema with its own $refs, samples that fit it", () => {
    const model = buildModel(documentText);
    const [orders, payments, refunds] = model.channels;
    assert.deepEqual(orders!.registry, { format: "avro", subject: "orders-value", version: 2, id: 21 });
    assert.equal(orders!.payloadFormat, "json", "clients get JSON");
    assert.deepEqual((orders!.schema!.properties as Record<string, unknown>).lines, {
      type: "array",
      items: { $ref: "#/$defs/shop.Line" },
    });
    const sample = orders!.examplePayload as Record<string, unknown>;
    assert.equal(sample.total, "1.00", "a decimal with the scale's digits");
    assert.equal(sample.created_at, "2024-05-01T10:34:56.789Z");
    assert.equal(sample.digest, "AAAAAAAAAAAAAAAAAAAAAA==", "16 bytes for fixed(16)");
    assert.equal(sample.note, null);
    assert.equal((payments!.examplePayload as Record<string, unknown>).amountCents, "0", "int64 as a string");
    assert.deepEqual(refunds!.registry, { format: "avro", subject: "refunds-value" });
    assert.equal(refunds!.schema, undefined);
  });

  test("typescript: interfaces from the converted schemas; tsc accepts them", async () => {
    const files = await generateClient(documentText, "typescript");
    const types = text(files, "src/types.ts");
    assert.match(types, /\/\/ \/orders\/\{orderId\} \(avro records of registry subject orders-value version 2, served as JSON\)/);
    assert.match(types, /export interface OrdersOrderIdMessage \{[^}]*total: string;[^}]*note: string \| null;/s);
    assert.match(types, /weight: number \| \("NaN" \| "Infinity" \| "-Infinity"\);/);
    assert.match(types, /"shop\.Card": OrdersOrderIdCard;/);
    assert.match(types, /export interface OrdersOrderIdLine \{[^}]*parts: OrdersOrderIdLine\[\];/s, "recursion through $defs");
    assert.match(types, /export interface PaymentsPaymentIdMessage \{[^}]*amountCents: string;[^}]*paidAt\?: string;[^}]*card\?: string;/s);
    assert.match(types, /export type PaymentsPaymentIdState = "PENDING" \| "DONE";/);
    assert.match(types, /export type RefundsAllMessage = unknown;/);
    const root = writeTree("typescript", files);
    const tsc = join(workspace, "node_modules", "typescript", "bin", "tsc");
    try {
      execFileSync(process.execPath, [tsc, "--noEmit", "--strict", "--target", "ES2022", "src/types.ts"], { cwd: root, stdio: "pipe" });
    } catch (err) {
      assert.fail(`tsc failed:\n${String((err as { stdout: Buffer }).stdout)}`);
    }
  });

  test("python: TypedDicts from the converted schemas; py_compile", async () => {
    const files = await generateClient(documentText, "python");
    const api = text(files, "api.py");
    assert.match(api, /class OrdersOrderIdPayload\(TypedDict, total=False\):/);
    assert.match(api, /note: Required\[Optional\[str\]\]/);
    assert.match(api, /address: Required\[Optional\[OrdersOrderIdPayloadLinesItemAddress\]\]/, "a nullable record");
    assert.match(api, /amountCents: Required\[str\]/);
    assert.match(api, /paidAt: str$/m, "a field with presence is not required");
    assert.match(api, /RefundsAllPayload = Any\n"""Any JSON value: its avro schema \(registry subject refunds-value\) could not be read/);
    assert.match(
      text(files, "README.md"),
      /\| `\/orders\/\{orderId\}` \| subscribe, publish \| avro as JSON \(registry subject `orders-value`\) \|/,
    );
    const r = run("python3", ["-m", "py_compile", "api.py"], writeTree("python", files));
    assert.equal(r.status, 0, r.stderr);
  });

  test("go: structs from the converted schemas; gofmt-clean and go vet", async () => {
    const files = await generateClient(documentText, "go");
    const api = text(files, "sluice/api.go");
    assert.match(api, /^\tNote +\*string +`json:"note"`/m);
    assert.match(api, /^\tLines +\[\]OrdersOrderIdPayloadLinesItem +`json:"lines"`/m);
    assert.match(api, /^\tAmountCents +string +`json:"amountCents"`/m);
    assert.match(api, /^\tPaidAt +\*string +`json:"paidAt,omitempty"`/m);
    const root = writeTree("go", files);
    const fmt = run("gofmt", ["-l", "."], root);
    assert.equal(fmt.stdout, "", `not gofmt-clean: ${fmt.stdout}`);
    const vet = run("go", ["vet", "./..."], root);
    assert.equal(vet.status, 0, vet.stderr);
  });

  test("java: records from the converted schemas; javac -Xlint -Werror", async () => {
    const files = await generateClient(documentText, "java");
    const api = text(files, "src/sluice/Api.java");
    assert.match(
      api,
      /public record OrdersOrderIdPayload\(String id, String total, String createdAt, Long quantity, Object weight, String note,/,
    );
    assert.match(api, /public record PaymentsPaymentIdPayload\(String id, String amountCents, String paidAt,/);
    const root = writeTree("java", files);
    const r = run(
      "javac",
      ["-encoding", "UTF-8", "-Xlint:all", "-Werror", "-d", "build", "-sourcepath", "src", "src/sluice/Main.java"],
      root,
    );
    assert.equal(r.status, 0, r.stdout + r.stderr);
  });

  test("javascript and curl: samples that fit the schema, the converted schema in the README", async () => {
    const page = text(await generateClient(documentText, "javascript"), "client.html");
    assert.match(page, /&quot;total&quot;:&quot;1\.00&quot;/);
    const files = await generateClient(documentText, "curl");
    const readme = text(files, "README.md");
    assert.match(readme, /"pattern": "\^-\?\[0-9\]\+\\\\\.\[0-9\]\{2\}\$"/, "the converted schema is shown");
    assert.match(readme, /"amountCents":"0"/);
  });
});
