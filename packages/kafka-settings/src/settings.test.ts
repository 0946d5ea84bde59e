import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { selfSignedCertificate } from "../test-support/certificates.ts";
import {
  type Env,
  INSECURE_WARNING,
  KafkaSettingsError,
  describeKafkaSettings,
  hasKafkaSecuritySettings,
  kafkaClientConfig,
  loadKafkaSettings,
} from "./index.ts";

// Throw-away certificates and keys, made once for this file by openssl.
const dir = mkdtempSync(path.join(tmpdir(), "kafka-settings-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const f = (name: string) => path.join(dir, name);
for (const name of ["a", "b"]) selfSignedCertificate(dir, name);
writeFileSync(f("garbage.pem"), "not a pem at all\n");
writeFileSync(f("bad-cert.pem"), "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
const PASSWORD = "s3cr3t-Pa55word-xyz";
const CLIENT_SECRET = "c1ient-5ecret-qrs";
writeFileSync(f("password"), `${PASSWORD}\n`);
writeFileSync(f("client-secret"), `${CLIENT_SECRET}\r\n`);
writeFileSync(f("empty"), "\n");

const SCRAM: Env = {
  KAFKA_SECURITY_PROTOCOL: "SASL_SSL",
  KAFKA_SASL_MECHANISM: "SCRAM-SHA-512",
  KAFKA_SASL_USERNAME: "sluice",
  KAFKA_SASL_PASSWORD: PASSWORD,
};
const OAUTH: Env = {
  KAFKA_SECURITY_PROTOCOL: "SASL_SSL",
  KAFKA_SASL_MECHANISM: "OAUTHBEARER",
  KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL: "https://idp.example/token",
  KAFKA_SASL_OAUTHBEARER_CLIENT_ID: "sluice-client",
  KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET: CLIENT_SECRET,
};

/** Every error case of the contract: env, the variable the error must name, and a piece of its message. */
const errors: Array<[string, Env, string, RegExp]> = [
  ["unknown protocol", { KAFKA_SECURITY_PROTOCOL: "TLS" }, "KAFKA_SECURITY_PROTOCOL", /PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL/],
  [
    "unknown mechanism",
    { ...SCRAM, KAFKA_SASL_MECHANISM: "GSSAPI" },
    "KAFKA_SASL_MECHANISM",
    /PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER/,
  ],
  [
    "skip-verify not a boolean",
    { KAFKA_SECURITY_PROTOCOL: "SSL", KAFKA_TLS_INSECURE_SKIP_VERIFY: "yes" },
    "KAFKA_TLS_INSECURE_SKIP_VERIFY",
    /true, false/,
  ],
  [
    "TLS file with PLAINTEXT",
    { KAFKA_TLS_CA_FILE: f("a.crt") },
    "KAFKA_SECURITY_PROTOCOL",
    /set it to SSL or SASL_SSL to use KAFKA_TLS_CA_FILE/,
  ],
  [
    "TLS server name with SASL_PLAINTEXT",
    { ...SCRAM, KAFKA_SECURITY_PROTOCOL: "SASL_PLAINTEXT", KAFKA_TLS_SERVER_NAME: "k" },
    "KAFKA_SECURITY_PROTOCOL",
    /KAFKA_TLS_SERVER_NAME/,
  ],
  ["skip-verify with PLAINTEXT", { KAFKA_TLS_INSECURE_SKIP_VERIFY: "false" }, "KAFKA_SECURITY_PROTOCOL", /KAFKA_TLS_INSECURE_SKIP_VERIFY/],
  ["mechanism with PLAINTEXT", { KAFKA_SASL_MECHANISM: "PLAIN" }, "KAFKA_SASL_MECHANISM", /KAFKA_SECURITY_PROTOCOL is PLAINTEXT/],
  ["mechanism with SSL", { KAFKA_SECURITY_PROTOCOL: "ssl", KAFKA_SASL_MECHANISM: "PLAIN" }, "KAFKA_SASL_MECHANISM", /is SSL/],
  [
    "username without SASL",
    { KAFKA_SASL_USERNAME: "u" },
    "KAFKA_SECURITY_PROTOCOL",
    /SASL_SSL or SASL_PLAINTEXT to use KAFKA_SASL_USERNAME/,
  ],
  [
    "oauth setting without SASL",
    { KAFKA_SECURITY_PROTOCOL: "SSL", KAFKA_SASL_OAUTHBEARER_CLIENT_ID: "c" },
    "KAFKA_SECURITY_PROTOCOL",
    /KAFKA_SASL_OAUTHBEARER_CLIENT_ID/,
  ],
  [
    "SASL without mechanism",
    { KAFKA_SECURITY_PROTOCOL: "SASL_SSL" },
    "KAFKA_SASL_MECHANISM",
    /required with KAFKA_SECURITY_PROTOCOL=SASL_SSL/,
  ],
  ["SCRAM without username", { ...SCRAM, KAFKA_SASL_USERNAME: "" }, "KAFKA_SASL_USERNAME", /required/],
  [
    "PLAIN without password",
    { ...SCRAM, KAFKA_SASL_MECHANISM: "PLAIN", KAFKA_SASL_PASSWORD: undefined },
    "KAFKA_SASL_PASSWORD",
    /KAFKA_SASL_PASSWORD_FILE/,
  ],
  ["password and password file", { ...SCRAM, KAFKA_SASL_PASSWORD_FILE: f("password") }, "KAFKA_SASL_PASSWORD", /not both/],
  [
    "missing password file",
    { ...SCRAM, KAFKA_SASL_PASSWORD: undefined, KAFKA_SASL_PASSWORD_FILE: f("nope") },
    "KAFKA_SASL_PASSWORD_FILE",
    /cannot read .*nope \(ENOENT\)/,
  ],
  [
    "empty password file",
    { ...SCRAM, KAFKA_SASL_PASSWORD: undefined, KAFKA_SASL_PASSWORD_FILE: f("empty") },
    "KAFKA_SASL_PASSWORD_FILE",
    /is empty/,
  ],
  ["oauth setting with SCRAM", { ...SCRAM, KAFKA_SASL_OAUTHBEARER_SCOPE: "s" }, "KAFKA_SASL_OAUTHBEARER_SCOPE", /OAUTHBEARER/],
  ["password with OAUTHBEARER", { ...OAUTH, KAFKA_SASL_PASSWORD: PASSWORD }, "KAFKA_SASL_PASSWORD", /PLAIN and SCRAM/],
  [
    "OAUTHBEARER without endpoint",
    { ...OAUTH, KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL: undefined },
    "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL",
    /required/,
  ],
  [
    "endpoint not a URL",
    { ...OAUTH, KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL: "idp/token" },
    "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL",
    /not a URL/,
  ],
  [
    "endpoint plain http",
    { ...OAUTH, KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL: "http://idp.example/token" },
    "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL",
    /https/,
  ],
  [
    "OAUTHBEARER without client id",
    { ...OAUTH, KAFKA_SASL_OAUTHBEARER_CLIENT_ID: undefined },
    "KAFKA_SASL_OAUTHBEARER_CLIENT_ID",
    /required/,
  ],
  [
    "OAUTHBEARER without secret",
    { ...OAUTH, KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET: undefined },
    "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET",
    /_FILE/,
  ],
  [
    "secret and secret file",
    { ...OAUTH, KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET_FILE: f("client-secret") },
    "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET",
    /not both/,
  ],
  ["missing CA file", { KAFKA_SECURITY_PROTOCOL: "SSL", KAFKA_TLS_CA_FILE: f("nope.crt") }, "KAFKA_TLS_CA_FILE", /ENOENT/],
  ["CA file not PEM", { KAFKA_SECURITY_PROTOCOL: "SSL", KAFKA_TLS_CA_FILE: f("garbage.pem") }, "KAFKA_TLS_CA_FILE", /no PEM certificate/],
  [
    "CA file bad certificate",
    { KAFKA_SECURITY_PROTOCOL: "SSL", KAFKA_TLS_CA_FILE: f("bad-cert.pem") },
    "KAFKA_TLS_CA_FILE",
    /not a valid PEM certificate/,
  ],
  [
    "cert without key",
    { KAFKA_SECURITY_PROTOCOL: "SSL", KAFKA_TLS_CERT_FILE: f("a.crt") },
    "KAFKA_TLS_KEY_FILE",
    /required with KAFKA_TLS_CERT_FILE/,
  ],
  [
    "key without cert",
    { KAFKA_SECURITY_PROTOCOL: "SSL", KAFKA_TLS_KEY_FILE: f("a.key") },
    "KAFKA_TLS_CERT_FILE",
    /required with KAFKA_TLS_KEY_FILE/,
  ],
  [
    "cert not PEM",
    { KAFKA_SECURITY_PROTOCOL: "SSL", KAFKA_TLS_CERT_FILE: f("garbage.pem"), KAFKA_TLS_KEY_FILE: f("a.key") },
    "KAFKA_TLS_CERT_FILE",
    /no PEM/,
  ],
  [
    "key not PEM",
    { KAFKA_SECURITY_PROTOCOL: "SSL", KAFKA_TLS_CERT_FILE: f("a.crt"), KAFKA_TLS_KEY_FILE: f("garbage.pem") },
    "KAFKA_TLS_KEY_FILE",
    /not a valid PEM private key/,
  ],
  [
    "key of another cert",
    { KAFKA_SECURITY_PROTOCOL: "SSL", KAFKA_TLS_CERT_FILE: f("a.crt"), KAFKA_TLS_KEY_FILE: f("b.key") },
    "KAFKA_TLS_KEY_FILE",
    /not the private key/,
  ],
];

for (const [name, env, variable, message] of errors) {
  test(`error: ${name} names ${variable}`, () => {
    assert.throws(
      () => loadKafkaSettings(env),
      (err: unknown) => {
        assert.ok(err instanceof KafkaSettingsError, `${err}`);
        assert.equal(err.variable, variable);
        assert.ok(err.message.startsWith(`${variable}: `), err.message);
        assert.match(err.message, message);
        assert.ok(!err.message.includes(PASSWORD) && !err.message.includes(CLIENT_SECRET), err.message);
        return true;
      },
    );
  });
}

test("no variable set: PLAINTEXT and an empty kafkajs fragment, exactly today's config", () => {
  assert.deepEqual(loadKafkaSettings({}), { protocol: "PLAINTEXT" });
  assert.deepEqual(loadKafkaSettings({ KAFKA_SECURITY_PROTOCOL: " ", KAFKA_SASL_MECHANISM: "" }), { protocol: "PLAINTEXT" });
  assert.deepEqual(kafkaClientConfig(loadKafkaSettings({})), {});
  assert.equal(hasKafkaSecuritySettings({ KAFKA_BROKERS: "k:9092" }), false);
  assert.equal(hasKafkaSecuritySettings({ KAFKA_SASL_USERNAME: "u" }), true);
});

test("protocol and mechanism are case-insensitive", () => {
  const s = loadKafkaSettings({ ...SCRAM, KAFKA_SECURITY_PROTOCOL: "sasl_plaintext", KAFKA_SASL_MECHANISM: "scram-sha-256" });
  assert.equal(s.protocol, "SASL_PLAINTEXT");
  assert.equal(s.sasl?.mechanism, "SCRAM-SHA-256");
  assert.equal(s.tls, undefined);
});

test("SSL without files: system roots (ssl: true)", () => {
  assert.deepEqual(kafkaClientConfig(loadKafkaSettings({ KAFKA_SECURITY_PROTOCOL: "SSL" })), { ssl: true });
});

test("mutual TLS: CA, certificate, key and server name become kafkajs ssl options", () => {
  const s = loadKafkaSettings({
    KAFKA_SECURITY_PROTOCOL: "SSL",
    KAFKA_TLS_CA_FILE: f("b.crt"),
    KAFKA_TLS_CERT_FILE: f("a.crt"),
    KAFKA_TLS_KEY_FILE: f("a.key"),
    KAFKA_TLS_SERVER_NAME: "kafka.internal",
  });
  const warnings: string[] = [];
  const { ssl, sasl } = kafkaClientConfig(s, { warn: (m) => warnings.push(m) });
  assert.equal(sasl, undefined);
  assert.ok(typeof ssl === "object");
  assert.match(String(ssl.ca), /BEGIN CERTIFICATE/);
  assert.match(String(ssl.cert), /BEGIN CERTIFICATE/);
  assert.match(String(ssl.key), /PRIVATE KEY/);
  assert.equal(ssl.servername, "kafka.internal");
  assert.equal(ssl.rejectUnauthorized, undefined, "verification stays on");
  assert.equal(warnings.length, 0);
});

test("skip-verify: rejectUnauthorized false only when set, with a loud warning naming the variable", () => {
  const warnings: string[] = [];
  const off = kafkaClientConfig(loadKafkaSettings({ KAFKA_SECURITY_PROTOCOL: "SSL", KAFKA_TLS_INSECURE_SKIP_VERIFY: "false" }), {
    warn: (m) => warnings.push(m),
  });
  assert.equal(off.ssl, true);
  assert.equal(warnings.length, 0);
  const on = kafkaClientConfig(loadKafkaSettings({ KAFKA_SECURITY_PROTOCOL: "SSL", KAFKA_TLS_INSECURE_SKIP_VERIFY: "TRUE" }), {
    warn: (m) => warnings.push(m),
  });
  assert.deepEqual(on.ssl, { rejectUnauthorized: false });
  assert.deepEqual(warnings, [INSECURE_WARNING]);
  assert.match(INSECURE_WARNING, /^WARNING: KAFKA_TLS_INSECURE_SKIP_VERIFY/);
});

test("PLAIN and SCRAM map to kafkajs mechanisms", () => {
  const pairs: Array<[string, string]> = [
    ["PLAIN", "plain"],
    ["SCRAM-SHA-256", "scram-sha-256"],
    ["SCRAM-SHA-512", "scram-sha-512"],
  ];
  for (const [mechanism, kafkajs] of pairs) {
    const { sasl, ssl } = kafkaClientConfig(loadKafkaSettings({ ...SCRAM, KAFKA_SASL_MECHANISM: mechanism }));
    assert.deepEqual(sasl, { mechanism: kafkajs, username: "sluice", password: PASSWORD });
    assert.equal(ssl, true);
  }
});

test("_FILE secrets: one trailing newline trimmed", () => {
  const s = loadKafkaSettings({ ...SCRAM, KAFKA_SASL_PASSWORD: undefined, KAFKA_SASL_PASSWORD_FILE: f("password") });
  assert.equal(s.sasl?.mechanism === "SCRAM-SHA-512" && s.sasl.password, PASSWORD);
  const o = loadKafkaSettings({
    ...OAUTH,
    KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET: undefined,
    KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET_FILE: f("client-secret"),
  });
  assert.equal(o.sasl?.mechanism === "OAUTHBEARER" && o.sasl.clientSecret, CLIENT_SECRET);
});

test("OAUTHBEARER: our authenticator (it reads the broker's refusal); http allowed for loopback only", () => {
  const { sasl } = kafkaClientConfig(loadKafkaSettings({ ...OAUTH, KAFKA_SASL_OAUTHBEARER_SCOPE: "kafka read" }));
  assert.equal(sasl?.mechanism, "oauthbearer");
  assert.equal(typeof (sasl as { authenticationProvider?: unknown }).authenticationProvider, "function");
  for (const host of ["127.0.0.1:8080", "localhost", "[::1]:9"]) {
    const s = loadKafkaSettings({
      ...OAUTH,
      KAFKA_SECURITY_PROTOCOL: "SASL_PLAINTEXT",
      KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL: `http://${host}/token`,
    });
    assert.equal(s.sasl?.mechanism === "OAUTHBEARER" && s.sasl.tokenEndpointUrl, `http://${host}/token`);
  }
});

test("describe: secrets redacted or shown by file, files by path", () => {
  const scram = describeKafkaSettings(loadKafkaSettings({ ...SCRAM, KAFKA_TLS_CA_FILE: f("a.crt") })).join("\n");
  assert.match(scram, /KAFKA_SASL_PASSWORD=\[redacted\]/);
  assert.match(scram, /KAFKA_SASL_USERNAME=sluice/);
  assert.ok(scram.includes(`KAFKA_TLS_CA_FILE=${f("a.crt")}`));
  const fromFile = describeKafkaSettings(
    loadKafkaSettings({ ...SCRAM, KAFKA_SASL_PASSWORD: undefined, KAFKA_SASL_PASSWORD_FILE: f("password") }),
  ).join("\n");
  assert.ok(fromFile.includes(`KAFKA_SASL_PASSWORD=[from file ${f("password")}]`), fromFile);
  const mtls = describeKafkaSettings(
    loadKafkaSettings({
      KAFKA_SECURITY_PROTOCOL: "SSL",
      KAFKA_TLS_CERT_FILE: f("a.crt"),
      KAFKA_TLS_KEY_FILE: f("a.key"),
      KAFKA_TLS_INSECURE_SKIP_VERIFY: "true",
    }),
  ).join("\n");
  assert.ok(!mtls.includes("PRIVATE KEY"), mtls);
  assert.match(mtls, /KAFKA_TLS_CA_FILE=\(system roots\)/);
  assert.match(mtls, /NOT verified/);
  const oauth = describeKafkaSettings(loadKafkaSettings({ ...OAUTH, KAFKA_SASL_OAUTHBEARER_SCOPE: "kafka" })).join("\n");
  assert.match(oauth, /KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET=\[redacted\]/);
  assert.match(oauth, /KAFKA_SASL_OAUTHBEARER_SCOPE=kafka/);
  for (const text of [scram, fromFile, mtls, oauth]) {
    assert.ok(!text.includes(PASSWORD) && !text.includes(CLIENT_SECRET), text);
  }
});
