// packages/protocol/vectors/catalog-records.json is the builders' output: this
// fails when a builder changes what it writes and the file was not regenerated
// (SLUICE_WRITE_VECTORS=1 rewrites it), so the gateway's decoder, which is
// tested against the file, always sees what the portal and the bridge write.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { test } from "node:test";
import { CATALOG_VECTORS_FILE, catalogVectors } from "../test-support/catalog-vectors.ts";

test("vectors/catalog-records.json is what the record builders write", () => {
  const built = catalogVectors();
  if (process.env.SLUICE_WRITE_VECTORS) writeFileSync(CATALOG_VECTORS_FILE, `${JSON.stringify(built, null, 2)}\n`);
  const committed = JSON.parse(readFileSync(CATALOG_VECTORS_FILE, "utf8"));
  assert.deepEqual(committed, JSON.parse(JSON.stringify(built)), "regenerate with SLUICE_WRITE_VECTORS=1 pnpm --filter @sluice/db test");
});
