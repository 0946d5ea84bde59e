// The settings beyond the shared vectors: files that exist, redaction, TLS files.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { selfSignedCertificate } from "@sluice/kafka-settings/test-support/certificates";
import { RegistrySettingsError, describeRegistrySettings, loadRegistrySettings } from "./index.ts";

// Throw-away certificates and keys, made once for this file by openssl.
const dir = mkdtempSync(path.join(tmpdir(), "registry-settings-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const f = (name: string) => path.join(dir, name);
for (const name of ["a", "b"]) selfSignedCertificate(dir, name);
const PASSWORD = "pa55-w0rd-xyz";
writeFileSync(f("password"), `${PASSWORD}\n`);
writeFileSync(f("token"), "t0ken-abc\r\n");
writeFileSync(f("empty"), "\n");
writeFileSync(f("garbage.pem"), "not a pem\n");

const HTTPS = "https://registry.example.com/apis/ccompat/v7/";

const fails = (env: Record<string, string>, variable: string, pattern?: RegExp) =>
  assert.throws(
    () => loadRegistrySettings(env),
    (err: unknown) => {
      assert.ok(err instanceof RegistrySettingsError, String(err));
      assert.equal(err.variable, variable, err.message);
      if (pattern) assert.match(err.message, pattern);
      assert.ok(!err.message.includes(PASSWORD) && !err.message.includes("t0ken"), "no secret in the message");
      return true;
    },
  );

test("secrets from files lose one trailing newline and are never described", () => {
  const basic = loadRegistrySettings({
    SCHEMA_REGISTRY_URL: HTTPS,
    SCHEMA_REGISTRY_BASIC_AUTH_USERNAME: "sluice",
    SCHEMA_REGISTRY_BASIC_AUTH_PASSWORD_FILE: f("password"),
  });
  assert.equal(basic?.url, "https://registry.example.com/apis/ccompat/v7");
  assert.deepEqual(basic?.auth, {
    kind: "basic",
    username: "sluice",
    password: PASSWORD,
    passwordSource: { variable: "SCHEMA_REGISTRY_BASIC_AUTH_PASSWORD_FILE", file: f("password") },
  });
  assert.deepEqual(describeRegistrySettings(basic), [
    "SCHEMA_REGISTRY_URL=https://registry.example.com/apis/ccompat/v7",
    "SCHEMA_REGISTRY_BASIC_AUTH_USERNAME=sluice",
    `SCHEMA_REGISTRY_BASIC_AUTH_PASSWORD=[from file ${f("password")}]`,
  ]);
  const bearer = loadRegistrySettings({ SCHEMA_REGISTRY_URL: HTTPS, SCHEMA_REGISTRY_BEARER_TOKEN_FILE: f("token") });
  assert.equal(bearer?.auth.kind === "bearer" && bearer.auth.token, "t0ken-abc");
  const direct = loadRegistrySettings({ SCHEMA_REGISTRY_URL: HTTPS, SCHEMA_REGISTRY_BEARER_TOKEN: "t0ken-direct" });
  assert.ok(describeRegistrySettings(direct).includes("SCHEMA_REGISTRY_BEARER_TOKEN=[redacted]"));
  assert.ok(!describeRegistrySettings(direct).join("\n").includes("t0ken"));
  assert.deepEqual(describeRegistrySettings(null), ["SCHEMA_REGISTRY_URL=(unset: no schema registry)"]);
});

test("an empty secret file is an error naming the _FILE variable", () => {
  fails({ SCHEMA_REGISTRY_URL: HTTPS, SCHEMA_REGISTRY_BEARER_TOKEN_FILE: f("empty") }, "SCHEMA_REGISTRY_BEARER_TOKEN_FILE", /is empty/);
});

test("a value and its file together name both", () => {
  fails(
    { SCHEMA_REGISTRY_URL: HTTPS, SCHEMA_REGISTRY_BEARER_TOKEN: "t0ken-x", SCHEMA_REGISTRY_BEARER_TOKEN_FILE: f("token") },
    "SCHEMA_REGISTRY_BEARER_TOKEN",
    /SCHEMA_REGISTRY_BEARER_TOKEN_FILE/,
  );
});

test("credentials in the URL are refused without printing them", () => {
  fails({ SCHEMA_REGISTRY_URL: `https://sluice:${PASSWORD}@registry.example.com` }, "SCHEMA_REGISTRY_URL", /credentials/);
});

test("http to ::1 may carry credentials", () => {
  const s = loadRegistrySettings({ SCHEMA_REGISTRY_URL: "http://[::1]:8081", SCHEMA_REGISTRY_BEARER_TOKEN: "t0ken-x" });
  assert.equal(s?.auth.kind, "bearer");
});

test("TLS files are read and checked: CA, a certificate with its own key", () => {
  const s = loadRegistrySettings({
    SCHEMA_REGISTRY_URL: HTTPS,
    SCHEMA_REGISTRY_TLS_CA_FILE: f("a.crt"),
    SCHEMA_REGISTRY_TLS_CERT_FILE: f("b.crt"),
    SCHEMA_REGISTRY_TLS_KEY_FILE: f("b.key"),
  });
  assert.equal(s?.tls?.ca?.file, f("a.crt"));
  assert.match(s?.tls?.key?.pem ?? "", /PRIVATE KEY/);
  assert.deepEqual(describeRegistrySettings(s).slice(1), [
    `SCHEMA_REGISTRY_TLS_CA_FILE=${f("a.crt")}`,
    `SCHEMA_REGISTRY_TLS_CERT_FILE=${f("b.crt")}`,
    `SCHEMA_REGISTRY_TLS_KEY_FILE=${f("b.key")}`,
  ]);
  fails({ SCHEMA_REGISTRY_URL: HTTPS, SCHEMA_REGISTRY_TLS_CA_FILE: f("garbage.pem") }, "SCHEMA_REGISTRY_TLS_CA_FILE", /no PEM certificate/);
  fails(
    { SCHEMA_REGISTRY_URL: HTTPS, SCHEMA_REGISTRY_TLS_CERT_FILE: f("a.crt"), SCHEMA_REGISTRY_TLS_KEY_FILE: f("b.key") },
    "SCHEMA_REGISTRY_TLS_KEY_FILE",
    /not the private key/,
  );
  fails(
    { SCHEMA_REGISTRY_URL: HTTPS, SCHEMA_REGISTRY_TLS_CERT_FILE: f("a.crt"), SCHEMA_REGISTRY_TLS_KEY_FILE: f("garbage.pem") },
    "SCHEMA_REGISTRY_TLS_KEY_FILE",
    /not a valid PEM private key/,
  );
});
