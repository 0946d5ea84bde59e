import assert from "node:assert/strict";
import { test } from "node:test";

import { convertWithReferences } from "@sluice/schema-registry";

import { schemaKeyProblem } from "./schema-key";

const avroToJsonSchema = (text: string) => convertWithReferences("AVRO", text, []).jsonSchema;

test("a string key schema accepts any key as itself", () => {
  const schema = avroToJsonSchema('"string"');
  for (const key of ["c1", "42", '{"a":1}', "a/b"]) assert.equal(schemaKeyProblem(key, schema), undefined, key);
});

test("a number key is its JSON text", () => {
  const schema = avroToJsonSchema('"long"');
  assert.equal(schemaKeyProblem("42", schema), undefined);
  assert.match(schemaKeyProblem("abc", schema) ?? "", /not JSON/);
  assert.match(schemaKeyProblem("4.5", schema) ?? "", /not a value of the key schema/);
});

test("a record key is its compact JSON, fields in the schema's order", () => {
  const schema = avroToJsonSchema(
    JSON.stringify({
      type: "record",
      name: "CartKey",
      namespace: "com.acme",
      fields: [
        { name: "shop", type: "string" },
        { name: "id", type: "int" },
      ],
    }),
  );
  assert.equal(schemaKeyProblem('{"shop":"eu","id":7}', schema), undefined);
  assert.match(schemaKeyProblem('{"id":7,"shop":"eu"}', schema) ?? "", /schema's order \(\{"shop":"eu","id":7\}\)/);
  assert.match(schemaKeyProblem('{"shop": "eu", "id": 7}', schema) ?? "", /compact JSON/);
  assert.match(schemaKeyProblem('{"shop":"eu"}', schema) ?? "", /required property 'id'/);
});

test("a recursive record key (its type in $defs, a nullable field) is ordered through its $refs", () => {
  const schema = avroToJsonSchema(
    JSON.stringify({
      type: "record",
      name: "Node",
      fields: [
        { name: "name", type: "string" },
        { name: "parent", type: ["null", "Node"], default: null },
      ],
    }),
  );
  assert.equal(schemaKeyProblem('{"name":"a","parent":{"name":"b","parent":null}}', schema), undefined);
  assert.match(
    schemaKeyProblem('{"name":"a","parent":{"parent":null,"name":"b"}}', schema) ?? "",
    /\(\{"name":"a","parent":\{"name":"b","parent":null\}\}\)/,
  );
});
