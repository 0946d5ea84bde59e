import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { AppError } from "../errors";
import { createApiInput, updateApiInput } from "./apis";
import { parseInput } from "./parse";

const versionError = (schema: typeof createApiInput | typeof updateApiInput, version: string) => {
  try {
    parseInput(schema, { name: "Prices", version });
    return undefined;
  } catch (err) {
    assert.ok(err instanceof AppError);
    return err.fieldErrors.find((e) => e.field === "version")?.message;
  }
};

describe("API version", () => {
  test("a new API's version is MAJOR.MINOR.PATCH, named as the field `version` otherwise", () => {
    for (const good of ["1.0.0", "0.1.0", "10.20.30", "1.0.0-beta.1", "2.0.0+build.5", "1.0.0-rc.1+sha.abc"]) {
      assert.equal(versionError(createApiInput, good), undefined, good);
    }
    for (const bad of ["one", "1", "1.0", "v1.0.0", "01.0.0", "1.0.0.0", "1.0.0-", "1 .0.0", "1.0.0-beta..1"]) {
      assert.match(versionError(createApiInput, bad) ?? "", /MAJOR\.MINOR\.PATCH/, bad);
    }
    assert.equal(versionError(createApiInput, ""), "is required, e.g. 1.0.0");
    assert.equal(versionError(createApiInput, `1.0.0-${"a".repeat(50)}`), "must be at most 50 characters");
  });

  test("an update still parses an older non-semantic version (updateApi refuses it only when it changes)", () => {
    assert.equal(versionError(updateApiInput, "one"), undefined);
    assert.equal(versionError(updateApiInput, "v1"), undefined);
    assert.match(versionError(updateApiInput, "has space") ?? "", /MAJOR\.MINOR\.PATCH/);
  });
});
