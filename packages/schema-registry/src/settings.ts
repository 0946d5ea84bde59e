// The schema registry connection settings every TypeScript component reads (the
// portal today), from SCHEMA_REGISTRY_* environment variables, validated at
// start. The Go gateway implements the same contract; both test against
// packages/protocol/vectors/registry-settings.json.
import { X509Certificate, createPrivateKey } from "node:crypto";
import { readFileSync } from "node:fs";

/** The environment the settings are read from (process.env, or a test's object). */
export type Env = Record<string, string | undefined>;

/**
 * RegistrySettingsError is every error of the settings: `variable` is the one
 * environment variable to fix, and the message starts with it. Messages never
 * contain a secret (a password, a token, a key's content).
 */
export class RegistrySettingsError extends Error {
  override name = "RegistrySettingsError";
  readonly variable: string;
  constructor(variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.variable = variable;
  }
}

/** Where a secret came from: the variable itself, or the file a `…_FILE` variable names. */
export type SecretSource = { variable: string } | { variable: string; file: string };

export type RegistryAuth =
  | { kind: "none" }
  | { kind: "basic"; username: string; password: string; passwordSource: SecretSource }
  | { kind: "bearer"; token: string; tokenSource: SecretSource };

/** Files for https: a CA bundle instead of the system roots, and a client certificate. */
export interface RegistryTls {
  ca?: { file: string; pem: string };
  cert?: { file: string; pem: string };
  key?: { file: string; pem: string };
}

/** RegistrySettings is the validated contract for a configured registry. */
export interface RegistrySettings {
  /** Base URL of the Confluent-compatible API, without a trailing slash and without credentials. */
  url: string;
  auth: RegistryAuth;
  /** Set only when a TLS variable is (https only). */
  tls?: RegistryTls;
}

const TLS_VARIABLES = ["SCHEMA_REGISTRY_TLS_CA_FILE", "SCHEMA_REGISTRY_TLS_CERT_FILE", "SCHEMA_REGISTRY_TLS_KEY_FILE"] as const;
const BASIC_VARIABLES = [
  "SCHEMA_REGISTRY_BASIC_AUTH_USERNAME",
  "SCHEMA_REGISTRY_BASIC_AUTH_PASSWORD",
  "SCHEMA_REGISTRY_BASIC_AUTH_PASSWORD_FILE",
] as const;
const BEARER_VARIABLES = ["SCHEMA_REGISTRY_BEARER_TOKEN", "SCHEMA_REGISTRY_BEARER_TOKEN_FILE"] as const;

/** Every variable of the contract: what the launcher passes on to the components. */
export const SCHEMA_REGISTRY_VARIABLES: readonly string[] = [
  "SCHEMA_REGISTRY_URL",
  ...BASIC_VARIABLES,
  ...BEARER_VARIABLES,
  ...TLS_VARIABLES,
];

/** The variable's value, or undefined when unset or blank. */
function value(env: Env, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === "" ? undefined : raw;
}

/** Reads a file a variable names; errors name the variable and the path, never the content. */
function readNamedFile(name: string, file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new RegistrySettingsError(name, `cannot read ${file}${code ? ` (${code})` : ""}`);
  }
}

/**
 * A secret from NAME or NAME_FILE (exactly one of them). A file's content loses
 * one trailing newline, as editors and `echo` add it; an empty file is an error.
 */
function secret(env: Env, name: string): { value: string; source: SecretSource } | undefined {
  const fileVar = `${name}_FILE`;
  const direct = value(env, name);
  const file = value(env, fileVar);
  if (direct !== undefined && file !== undefined) {
    throw new RegistrySettingsError(name, `set either ${name} or ${fileVar}, not both`);
  }
  if (direct !== undefined) return { value: direct, source: { variable: name } };
  if (file === undefined) return undefined;
  const content = readNamedFile(fileVar, file).replace(/\r?\n$/, "");
  if (content === "") throw new RegistrySettingsError(fileVar, `${file} is empty`);
  return { value: content, source: { variable: fileVar, file } };
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Parses SCHEMA_REGISTRY_URL; the error quotes the value only when it cannot hold a credential. */
function registryUrl(raw: string): URL {
  const name = "SCHEMA_REGISTRY_URL";
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new RegistrySettingsError(name, "is not a URL (expected http(s)://host:port/path of the Confluent-compatible API)");
  }
  // URLs get printed (logs, errors): a credential belongs in the variables made for it.
  if (url.username || url.password) {
    throw new RegistrySettingsError(
      name,
      "must not contain credentials (use SCHEMA_REGISTRY_BASIC_AUTH_USERNAME and SCHEMA_REGISTRY_BASIC_AUTH_PASSWORD)",
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new RegistrySettingsError(name, `must be an http or https URL, not ${url.protocol}`);
  }
  if (url.search || url.hash) throw new RegistrySettingsError(name, "must not have a query or a fragment");
  return url;
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Reads a PEM file of one or more certificates and checks that each parses. */
function certificates(name: string, file: string): { file: string; pem: string; parsed: X509Certificate[] } {
  const pem = readNamedFile(name, file);
  const blocks = pem.match(PEM_CERT) ?? [];
  if (blocks.length === 0) throw new RegistrySettingsError(name, `${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  const parsed = blocks.map((block, i) => {
    try {
      return new X509Certificate(block);
    } catch {
      throw new RegistrySettingsError(name, `certificate ${i + 1} in ${file} is not a valid PEM certificate`);
    }
  });
  return { file, pem, parsed };
}

function tlsSettings(env: Env): RegistryTls | undefined {
  const caFile = value(env, "SCHEMA_REGISTRY_TLS_CA_FILE");
  const certFile = value(env, "SCHEMA_REGISTRY_TLS_CERT_FILE");
  const keyFile = value(env, "SCHEMA_REGISTRY_TLS_KEY_FILE");
  if (certFile !== undefined && keyFile === undefined) {
    throw new RegistrySettingsError(
      "SCHEMA_REGISTRY_TLS_KEY_FILE",
      "is required with SCHEMA_REGISTRY_TLS_CERT_FILE (the client certificate's key)",
    );
  }
  if (keyFile !== undefined && certFile === undefined) {
    throw new RegistrySettingsError(
      "SCHEMA_REGISTRY_TLS_CERT_FILE",
      "is required with SCHEMA_REGISTRY_TLS_KEY_FILE (the client certificate)",
    );
  }
  if (caFile === undefined && certFile === undefined) return undefined;
  const tls: RegistryTls = {};
  if (caFile !== undefined) {
    const { file, pem } = certificates("SCHEMA_REGISTRY_TLS_CA_FILE", caFile);
    tls.ca = { file, pem };
  }
  if (certFile !== undefined && keyFile !== undefined) {
    const cert = certificates("SCHEMA_REGISTRY_TLS_CERT_FILE", certFile);
    const keyPem = readNamedFile("SCHEMA_REGISTRY_TLS_KEY_FILE", keyFile);
    let key: ReturnType<typeof createPrivateKey>;
    try {
      key = createPrivateKey(keyPem);
    } catch {
      // crypto's message may quote the input: not passed on.
      throw new RegistrySettingsError(
        "SCHEMA_REGISTRY_TLS_KEY_FILE",
        `${keyFile} is not a valid PEM private key (unencrypted PKCS#8, PKCS#1 or SEC1)`,
      );
    }
    if (!cert.parsed[0]!.checkPrivateKey(key)) {
      throw new RegistrySettingsError(
        "SCHEMA_REGISTRY_TLS_KEY_FILE",
        `${keyFile} is not the private key of the certificate in ${certFile}`,
      );
    }
    tls.cert = { file: cert.file, pem: cert.pem };
    tls.key = { file: keyFile, pem: keyPem };
  }
  return tls;
}

function authSettings(env: Env): RegistryAuth {
  const username = value(env, "SCHEMA_REGISTRY_BASIC_AUTH_USERNAME");
  const basicSet = BASIC_VARIABLES.some((name) => value(env, name) !== undefined);
  const bearerSet = BEARER_VARIABLES.some((name) => value(env, name) !== undefined);
  if (basicSet && bearerSet) {
    const bearerVar = BEARER_VARIABLES.find((name) => value(env, name) !== undefined)!;
    throw new RegistrySettingsError(bearerVar, "cannot be used together with HTTP Basic (SCHEMA_REGISTRY_BASIC_AUTH_*): choose one");
  }
  if (bearerSet) {
    const token = secret(env, "SCHEMA_REGISTRY_BEARER_TOKEN")!;
    return { kind: "bearer", token: token.value, tokenSource: token.source };
  }
  if (!basicSet) return { kind: "none" };
  if (username === undefined) {
    throw new RegistrySettingsError("SCHEMA_REGISTRY_BASIC_AUTH_USERNAME", "is required with SCHEMA_REGISTRY_BASIC_AUTH_PASSWORD");
  }
  const password = secret(env, "SCHEMA_REGISTRY_BASIC_AUTH_PASSWORD");
  if (!password) {
    throw new RegistrySettingsError(
      "SCHEMA_REGISTRY_BASIC_AUTH_PASSWORD",
      "is required with SCHEMA_REGISTRY_BASIC_AUTH_USERNAME (or SCHEMA_REGISTRY_BASIC_AUTH_PASSWORD_FILE)",
    );
  }
  return { kind: "basic", username: username.trim(), password: password.value, passwordSource: password.source };
}

/**
 * loadRegistrySettings reads and validates the SCHEMA_REGISTRY_* variables:
 * files (CA, client certificate and key, secrets) are read and parsed now, so a
 * bad setting stops a component at start with a RegistrySettingsError naming
 * it. Returns null when SCHEMA_REGISTRY_URL is unset: no registry, so the
 * registry-backed payload formats are refused where they are used.
 */
export function loadRegistrySettings(env: Env = process.env): RegistrySettings | null {
  const raw = value(env, "SCHEMA_REGISTRY_URL");
  if (raw === undefined) {
    const stray = SCHEMA_REGISTRY_VARIABLES.find((name) => value(env, name) !== undefined);
    if (stray) throw new RegistrySettingsError("SCHEMA_REGISTRY_URL", `is required with ${stray}`);
    return null;
  }
  const url = registryUrl(raw);
  if (url.protocol === "http:") {
    const tlsVar = TLS_VARIABLES.find((name) => value(env, name) !== undefined);
    if (tlsVar) throw new RegistrySettingsError(tlsVar, "is for https; SCHEMA_REGISTRY_URL is an http URL");
  }
  const auth = authSettings(env);
  if (auth.kind !== "none" && url.protocol === "http:" && !LOOPBACK.has(url.hostname)) {
    throw new RegistrySettingsError(
      "SCHEMA_REGISTRY_URL",
      `must be https to send credentials (${auth.kind === "basic" ? "HTTP Basic" : "a bearer token"}); http only to 127.0.0.1, localhost or ::1`,
    );
  }
  const settings: RegistrySettings = { url: url.href.replace(/\/+$/, ""), auth };
  const tls = url.protocol === "https:" ? tlsSettings(env) : undefined;
  if (tls) settings.tls = tls;
  return settings;
}

const shownSecret = (source: SecretSource) => ("file" in source ? `[from file ${source.file}]` : "[redacted]");

/**
 * describeRegistrySettings is the printable form of the settings, one
 * `VARIABLE=value` line each, for start-up logs and checks: secrets show as
 * [redacted] or [from file /path], files by their path.
 */
export function describeRegistrySettings(settings: RegistrySettings | null): string[] {
  if (!settings) return ["SCHEMA_REGISTRY_URL=(unset: no schema registry)"];
  const lines = [`SCHEMA_REGISTRY_URL=${settings.url}`];
  const { auth, tls } = settings;
  if (auth.kind === "basic") {
    lines.push(
      `SCHEMA_REGISTRY_BASIC_AUTH_USERNAME=${auth.username}`,
      `SCHEMA_REGISTRY_BASIC_AUTH_PASSWORD=${shownSecret(auth.passwordSource)}`,
    );
  } else if (auth.kind === "bearer") {
    lines.push(`SCHEMA_REGISTRY_BEARER_TOKEN=${shownSecret(auth.tokenSource)}`);
  }
  if (tls?.ca) lines.push(`SCHEMA_REGISTRY_TLS_CA_FILE=${tls.ca.file}`);
  if (tls?.cert && tls.key) lines.push(`SCHEMA_REGISTRY_TLS_CERT_FILE=${tls.cert.file}`, `SCHEMA_REGISTRY_TLS_KEY_FILE=${tls.key.file}`);
  return lines;
}
