import assert from "node:assert/strict";
import { test } from "node:test";

import { diffSnapshots } from "./change-diff";

test("an update marks only the fields that differ", () => {
  const d = diffSnapshots({ name: "a", size: 1, tags: ["x"] }, { name: "a", size: 2, tags: ["x", "y"], owner: "o" });
  assert.deepEqual(Object.fromEntries(d.map((c) => [c.field, c.kind])), {
    name: "unchanged",
    size: "changed",
    tags: "changed",
    owner: "added",
  });
});

test("a creation adds every field, a deletion removes every field", () => {
  assert.deepEqual(
    diffSnapshots(null, { a: 1 }).map((c) => c.kind),
    ["added"],
  );
  assert.deepEqual(
    diffSnapshots({ a: 1, b: 2 }, null).map((c) => c.kind),
    ["removed", "removed"],
  );
});

test("no snapshots, or scalar snapshots", () => {
  assert.deepEqual(diffSnapshots(null, null), []);
  assert.deepEqual(diffSnapshots("x", "y"), [{ field: "(value)", before: "x", after: "y", kind: "changed" }]);
});
