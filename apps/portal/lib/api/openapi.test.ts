import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { buildOpenApiDocument } from "./openapi";
import { renderApiTypes } from "./render-api-types";
import { allRoutes } from "./routes";

test("every operation has a unique operationId and a unique method+path", () => {
  const ids = allRoutes.map((r) => r.operationId);
  assert.equal(new Set(ids).size, ids.length, `duplicate operationId in ${ids.join(", ")}`);
  const keys = allRoutes.map((r) => `${r.method} ${r.path}`);
  assert.equal(new Set(keys).size, keys.length);
});

test("the document is OpenAPI 3.1 and every path parameter is declared", () => {
  const doc = buildOpenApiDocument();
  assert.equal(doc.openapi, "3.1.0");
  for (const [path, ops] of Object.entries(doc.paths)) {
    const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const [method, op] of Object.entries(ops as Record<string, { parameters?: { name: string; in: string }[] }>)) {
      const declared = (op.parameters ?? [])
        .filter((p) => p.in === "path")
        .map((p) => p.name)
        .sort();
      assert.deepEqual(declared, inPath, `${method.toUpperCase()} ${path}`);
    }
  }
});

test("every $ref points at a component that exists", () => {
  const doc = buildOpenApiDocument();
  const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
  for (const ref of refs) {
    const name = ref.replace(/^"\$ref":"#\/components\/schemas\//, "").replace(/"$/, "");
    assert.ok(name in doc.components.schemas, `dangling ${ref}`);
  }
});

test("lib/api/generated/v1.ts matches the routes (run pnpm --filter @sluice/portal generate:api-types)", async () => {
  const committed = readFileSync(new URL("./generated/v1.ts", import.meta.url), "utf8");
  assert.equal(committed, await renderApiTypes());
});
