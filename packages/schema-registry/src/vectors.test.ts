// packages/protocol/vectors/registry-settings.json: the settings as every
// component must read them; the Go gateway tests against the same file.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { RegistrySettingsError, loadRegistrySettings } from "./settings.ts";

interface Vectors {
  cases: {
    name: string;
    env: Record<string, string>;
    ok?: { configured: boolean; url: string | null; auth: "none" | "basic" | "bearer"; tls: boolean };
    error?: string;
  }[];
}

const vectors: Vectors = JSON.parse(readFileSync(new URL("../../protocol/vectors/registry-settings.json", import.meta.url), "utf8"));

test("the vectors are there", () => assert.ok(vectors.cases.length >= 20));

for (const c of vectors.cases) {
  test(c.name, () => {
    if (c.error) {
      assert.throws(
        () => loadRegistrySettings(c.env),
        (err: unknown) => {
          assert.ok(err instanceof RegistrySettingsError, String(err));
          assert.equal(err.variable, c.error);
          assert.ok(err.message.startsWith(c.error!), err.message);
          assert.ok(!err.message.includes("s3cret"), "no secret in the message");
          return true;
        },
      );
      return;
    }
    const settings = loadRegistrySettings(c.env);
    assert.deepEqual(
      { configured: settings !== null, url: settings?.url ?? null, auth: settings?.auth.kind ?? "none", tls: Boolean(settings?.tls) },
      c.ok,
    );
  });
}
