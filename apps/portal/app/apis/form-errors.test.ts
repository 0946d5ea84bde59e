import assert from "node:assert/strict";
import { test } from "node:test";

import { foldFieldErrors } from "./form-errors";

test("list items fold into their input; named nested fields keep their own input", () => {
  assert.deepEqual(
    foldFieldErrors(
      {
        "examples.1": "must be a string",
        keyParam: "is not a valid parameter name",
        "valueSchema.recordName": "is required",
        "valueSchema.version": "must be 1 or more",
        valueSchema: "is for the registry formats",
        "keySchema.version": "must be 1 or more",
        keySchema: "needs SCHEMA_REGISTRY_URL",
      },
      { keyParam: "key" },
    ),
    {
      examples: "example 2: must be a string",
      key: "is not a valid parameter name",
      "valueSchema.recordName": "is required",
      "valueSchema.version": "must be 1 or more",
      valueSchema: "is for the registry formats",
      "keySchema.version": "must be 1 or more",
      keySchema: "needs SCHEMA_REGISTRY_URL",
    },
  );
});
