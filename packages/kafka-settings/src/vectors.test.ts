// packages/protocol/vectors/kafka-settings.json: the settings as every component
// must read them; the Go gateway (internal/config) tests against the same file.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { KafkaSettingsError, loadKafkaSettings } from "./settings.ts";

interface Vectors {
  cases: {
    name: string;
    env: Record<string, string>;
    ok?: { protocol: string; mechanism: string | null; tls: boolean };
    error?: string;
  }[];
}

const vectors: Vectors = JSON.parse(readFileSync(new URL("../../protocol/vectors/kafka-settings.json", import.meta.url), "utf8"));

test("the vectors are there", () => assert.ok(vectors.cases.length >= 20));

for (const c of vectors.cases) {
  test(c.name, () => {
    if (c.error) {
      assert.throws(
        () => loadKafkaSettings(c.env),
        (err: unknown) => {
          assert.ok(err instanceof KafkaSettingsError, String(err));
          assert.equal(err.variable, c.error);
          assert.ok(err.message.startsWith(c.error!), err.message);
          assert.ok(!err.message.includes("s3cret"), "no secret in the message");
          return true;
        },
      );
      return;
    }
    const settings = loadKafkaSettings(c.env);
    assert.deepEqual({ protocol: settings.protocol, mechanism: settings.sasl?.mechanism ?? null, tls: Boolean(settings.tls) }, c.ok);
  });
}
