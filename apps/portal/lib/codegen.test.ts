import assert from "node:assert/strict";
import { test } from "node:test";

import { CLIENT_LANGUAGES, loadCodegen } from "./codegen";

test("the portal's language list is @sluice/codegen's, in its order", async () => {
  const { languages } = await loadCodegen();
  assert.deepEqual(
    [...CLIENT_LANGUAGES],
    languages.map((l) => l.id),
  );
});
