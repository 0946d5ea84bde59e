// The Kafka client settings every TypeScript component reads (the bridge, the
// portal, the launcher's preflight and demo feeder, the benchmarks): security
// protocol, TLS files and SASL credentials from KAFKA_* environment variables,
// validated at start. The Go gateway implements the same contract; the table of
// variables is in the README's Configuration section.
import { X509Certificate, createPrivateKey } from "node:crypto";
import { readFileSync } from "node:fs";

/** The environment the settings are read from (process.env, or a test's object). */
export type Env = Record<string, string | undefined>;

export const SECURITY_PROTOCOLS = ["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"] as const;
export type SecurityProtocol = (typeof SECURITY_PROTOCOLS)[number];

export const SASL_MECHANISMS = ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"] as const;
export type SaslMechanism = (typeof SASL_MECHANISMS)[number];

/**
 * KafkaSettingsError is every error of the settings: `variable` is the one
 * environment variable to fix, and the message starts with it. Messages never
 * contain a secret (a password, a client secret, a key's content).
 */
export class KafkaSettingsError extends Error {
  override name = "KafkaSettingsError";
  readonly variable: string;
  constructor(variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.variable = variable;
  }
}

/** Where a secret came from: the variable itself, or the file a `…_FILE` variable names. */
export type SecretSource = { variable: string } | { variable: string; file: string };

export interface TlsSettings {
  /** PEM CA bundle (KAFKA_TLS_CA_FILE); undefined: the system's roots. */
  ca?: { file: string; pem: string };
  /** Client certificate and key for mutual TLS (KAFKA_TLS_CERT_FILE, KAFKA_TLS_KEY_FILE). */
  cert?: { file: string; pem: string };
  key?: { file: string; pem: string };
  /** KAFKA_TLS_SERVER_NAME: the name verified and sent as SNI instead of the broker's host. */
  serverName?: string;
  /** KAFKA_TLS_INSECURE_SKIP_VERIFY=true: no certificate verification at all. */
  insecureSkipVerify: boolean;
}

export type SaslSettings =
  | {
      mechanism: "PLAIN" | "SCRAM-SHA-256" | "SCRAM-SHA-512";
      username: string;
      password: string;
      passwordSource: SecretSource;
    }
  | {
      mechanism: "OAUTHBEARER";
      tokenEndpointUrl: string;
      clientId: string;
      clientSecret: string;
      clientSecretSource: SecretSource;
      scope?: string;
    };

/** KafkaSettings is the validated contract; PLAINTEXT with neither tls nor sasl is today's default. */
export interface KafkaSettings {
  protocol: SecurityProtocol;
  tls?: TlsSettings;
  sasl?: SaslSettings;
}

const TLS_VARIABLES = [
  "KAFKA_TLS_CA_FILE",
  "KAFKA_TLS_CERT_FILE",
  "KAFKA_TLS_KEY_FILE",
  "KAFKA_TLS_SERVER_NAME",
  "KAFKA_TLS_INSECURE_SKIP_VERIFY",
] as const;

const PASSWORD_VARIABLES = ["KAFKA_SASL_USERNAME", "KAFKA_SASL_PASSWORD", "KAFKA_SASL_PASSWORD_FILE"] as const;
const OAUTH_VARIABLES = [
  "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL",
  "KAFKA_SASL_OAUTHBEARER_CLIENT_ID",
  "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET",
  "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET_FILE",
  "KAFKA_SASL_OAUTHBEARER_SCOPE",
] as const;
const SASL_VARIABLES = ["KAFKA_SASL_MECHANISM", ...PASSWORD_VARIABLES, ...OAUTH_VARIABLES] as const;

/** Every variable of the contract except KAFKA_BROKERS: what the launcher passes on and checks. */
export const KAFKA_SECURITY_VARIABLES: readonly string[] = ["KAFKA_SECURITY_PROTOCOL", ...TLS_VARIABLES, ...SASL_VARIABLES];

/** hasKafkaSecuritySettings tells whether any security variable is set (non-empty). */
export function hasKafkaSecuritySettings(env: Env): boolean {
  return KAFKA_SECURITY_VARIABLES.some((name) => value(env, name) !== undefined);
}

/** The variable's value, or undefined when unset or blank. */
function value(env: Env, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === "" ? undefined : raw;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[]): T | undefined {
  const raw = value(env, name);
  if (raw === undefined) return undefined;
  const found = allowed.find((a) => a === raw.trim().toUpperCase());
  if (!found) throw new KafkaSettingsError(name, `"${raw}" is not one of ${allowed.join(", ")}`);
  return found;
}

function boolean(env: Env, name: string): boolean {
  const raw = value(env, name);
  if (raw === undefined) return false;
  const v = raw.trim().toLowerCase();
  if (v === "true") return true;
  if (v === "false") return false;
  throw new KafkaSettingsError(name, `"${raw}" is not one of true, false`);
}

/** Reads a file a variable names; errors name the variable and the path, never the content. */
function readNamedFile(name: string, file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new KafkaSettingsError(name, `cannot read ${file}${code ? ` (${code})` : ""}`);
  }
}

/**
 * A secret from NAME or NAME_FILE (exactly one of them). A file's content loses
 * one trailing newline, as editors and `echo` add it.
 */
function secret(env: Env, name: string): { value: string; source: SecretSource } | undefined {
  const fileVar = `${name}_FILE`;
  const direct = value(env, name);
  const file = value(env, fileVar);
  if (direct !== undefined && file !== undefined) {
    throw new KafkaSettingsError(name, `set either ${name} or ${fileVar}, not both`);
  }
  if (direct !== undefined) return { value: direct, source: { variable: name } };
  if (file === undefined) return undefined;
  const content = readNamedFile(fileVar, file).replace(/\r?\n$/, "");
  if (content === "") throw new KafkaSettingsError(fileVar, `${file} is empty`);
  return { value: content, source: { variable: fileVar, file } };
}

function required(env: Env, name: string, mechanism: string): string {
  const v = value(env, name);
  if (v === undefined) throw new KafkaSettingsError(name, `is required with KAFKA_SASL_MECHANISM=${mechanism}`);
  return v;
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Reads a PEM file of one or more certificates and checks that each parses. */
function certificates(name: string, file: string): { file: string; pem: string; parsed: X509Certificate[] } {
  const pem = readNamedFile(name, file);
  const blocks = pem.match(PEM_CERT) ?? [];
  if (blocks.length === 0) throw new KafkaSettingsError(name, `${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  const parsed = blocks.map((block, i) => {
    try {
      return new X509Certificate(block);
    } catch {
      throw new KafkaSettingsError(name, `certificate ${i + 1} in ${file} is not a valid PEM certificate`);
    }
  });
  return { file, pem, parsed };
}

function tlsSettings(env: Env): TlsSettings {
  const tls: TlsSettings = { insecureSkipVerify: boolean(env, "KAFKA_TLS_INSECURE_SKIP_VERIFY") };
  const caFile = value(env, "KAFKA_TLS_CA_FILE");
  if (caFile !== undefined) {
    const { file, pem } = certificates("KAFKA_TLS_CA_FILE", caFile);
    tls.ca = { file, pem };
  }
  const certFile = value(env, "KAFKA_TLS_CERT_FILE");
  const keyFile = value(env, "KAFKA_TLS_KEY_FILE");
  if (certFile !== undefined && keyFile === undefined) {
    throw new KafkaSettingsError("KAFKA_TLS_KEY_FILE", "is required with KAFKA_TLS_CERT_FILE (the client certificate's private key)");
  }
  if (keyFile !== undefined && certFile === undefined) {
    throw new KafkaSettingsError("KAFKA_TLS_CERT_FILE", "is required with KAFKA_TLS_KEY_FILE (the client certificate)");
  }
  if (certFile !== undefined && keyFile !== undefined) {
    const cert = certificates("KAFKA_TLS_CERT_FILE", certFile);
    const keyPem = readNamedFile("KAFKA_TLS_KEY_FILE", keyFile);
    let key: ReturnType<typeof createPrivateKey>;
    try {
      key = createPrivateKey(keyPem);
    } catch {
      // crypto's message may quote the input: not passed on.
      throw new KafkaSettingsError("KAFKA_TLS_KEY_FILE", `${keyFile} is not a valid PEM private key (unencrypted PKCS#8, PKCS#1 or SEC1)`);
    }
    if (!cert.parsed[0]!.checkPrivateKey(key)) {
      throw new KafkaSettingsError("KAFKA_TLS_KEY_FILE", `${keyFile} is not the private key of the certificate in ${certFile}`);
    }
    tls.cert = { file: cert.file, pem: cert.pem };
    tls.key = { file: keyFile, pem: keyPem };
  }
  const serverName = value(env, "KAFKA_TLS_SERVER_NAME")?.trim();
  if (serverName !== undefined) tls.serverName = serverName;
  return tls;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

function tokenEndpoint(env: Env): string {
  const name = "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL";
  const raw = required(env, name, "OAUTHBEARER").trim();
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new KafkaSettingsError(name, `"${raw}" is not a URL`);
  }
  if (url.username || url.password)
    throw new KafkaSettingsError(name, "must not contain credentials (use the CLIENT_ID and CLIENT_SECRET variables)");
  if (url.protocol === "https:") return url.href;
  if (url.protocol === "http:" && LOOPBACK.has(url.hostname)) return url.href;
  throw new KafkaSettingsError(name, `"${raw}" must be an https URL (http only for 127.0.0.1, localhost or ::1)`);
}

function saslSettings(env: Env, mechanism: SaslMechanism): SaslSettings {
  if (mechanism === "OAUTHBEARER") {
    const stray = PASSWORD_VARIABLES.find((name) => value(env, name) !== undefined);
    if (stray) throw new KafkaSettingsError(stray, "is for PLAIN and SCRAM; OAUTHBEARER uses the KAFKA_SASL_OAUTHBEARER_* variables");
    const tokenEndpointUrl = tokenEndpoint(env);
    const clientId = required(env, "KAFKA_SASL_OAUTHBEARER_CLIENT_ID", mechanism);
    const clientSecret = secret(env, "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET");
    if (!clientSecret) {
      throw new KafkaSettingsError(
        "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET",
        "is required with KAFKA_SASL_MECHANISM=OAUTHBEARER (or KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET_FILE)",
      );
    }
    const scope = value(env, "KAFKA_SASL_OAUTHBEARER_SCOPE")?.trim();
    return {
      mechanism,
      tokenEndpointUrl,
      clientId,
      clientSecret: clientSecret.value,
      clientSecretSource: clientSecret.source,
      ...(scope ? { scope } : {}),
    };
  }
  const stray = OAUTH_VARIABLES.find((name) => value(env, name) !== undefined);
  if (stray) throw new KafkaSettingsError(stray, `is for OAUTHBEARER, not KAFKA_SASL_MECHANISM=${mechanism}`);
  const username = required(env, "KAFKA_SASL_USERNAME", mechanism);
  const password = secret(env, "KAFKA_SASL_PASSWORD");
  if (!password) {
    throw new KafkaSettingsError("KAFKA_SASL_PASSWORD", `is required with KAFKA_SASL_MECHANISM=${mechanism} (or KAFKA_SASL_PASSWORD_FILE)`);
  }
  return { mechanism, username, password: password.value, passwordSource: password.source };
}

/**
 * loadKafkaSettings reads and validates the KAFKA_* security variables: files
 * (CA, client certificate and key, secrets) are read and parsed now, so a bad
 * setting stops a component at start with a KafkaSettingsError naming it. With
 * none of them set it returns { protocol: "PLAINTEXT" }, today's behaviour.
 */
export function loadKafkaSettings(env: Env = process.env): KafkaSettings {
  const protocol = oneOf(env, "KAFKA_SECURITY_PROTOCOL", SECURITY_PROTOCOLS) ?? "PLAINTEXT";
  const usesTls = protocol === "SSL" || protocol === "SASL_SSL";
  const usesSasl = protocol === "SASL_PLAINTEXT" || protocol === "SASL_SSL";

  if (!usesTls) {
    const tlsVar = TLS_VARIABLES.find((name) => value(env, name) !== undefined);
    if (tlsVar) {
      throw new KafkaSettingsError("KAFKA_SECURITY_PROTOCOL", `is ${protocol}: set it to SSL or SASL_SSL to use ${tlsVar}`);
    }
  }
  const mechanism = oneOf(env, "KAFKA_SASL_MECHANISM", SASL_MECHANISMS);
  if (!usesSasl) {
    if (mechanism !== undefined) {
      throw new KafkaSettingsError(
        "KAFKA_SASL_MECHANISM",
        `is set but KAFKA_SECURITY_PROTOCOL is ${protocol}: set KAFKA_SECURITY_PROTOCOL to SASL_SSL or SASL_PLAINTEXT, or unset KAFKA_SASL_MECHANISM`,
      );
    }
    const saslVar = [...PASSWORD_VARIABLES, ...OAUTH_VARIABLES].find((name) => value(env, name) !== undefined);
    if (saslVar) {
      throw new KafkaSettingsError("KAFKA_SECURITY_PROTOCOL", `is ${protocol}: set it to SASL_SSL or SASL_PLAINTEXT to use ${saslVar}`);
    }
  } else if (mechanism === undefined) {
    throw new KafkaSettingsError(
      "KAFKA_SASL_MECHANISM",
      `is required with KAFKA_SECURITY_PROTOCOL=${protocol}: one of ${SASL_MECHANISMS.join(", ")}`,
    );
  }

  const settings: KafkaSettings = { protocol };
  if (usesTls) settings.tls = tlsSettings(env);
  if (usesSasl && mechanism !== undefined) settings.sasl = saslSettings(env, mechanism);
  return settings;
}

const shownSecret = (source: SecretSource) => ("file" in source ? `[from file ${source.file}]` : "[redacted]");

/**
 * describeKafkaSettings is the printable form of the settings, one
 * `VARIABLE=value` line each, for start-up logs and checks: secrets show as
 * [redacted] or [from file /path], files by their path.
 */
export function describeKafkaSettings(settings: KafkaSettings): string[] {
  const lines = [`KAFKA_SECURITY_PROTOCOL=${settings.protocol}`];
  const { tls, sasl } = settings;
  if (tls) {
    lines.push(`KAFKA_TLS_CA_FILE=${tls.ca ? tls.ca.file : "(system roots)"}`);
    if (tls.cert && tls.key) lines.push(`KAFKA_TLS_CERT_FILE=${tls.cert.file}`, `KAFKA_TLS_KEY_FILE=${tls.key.file}`);
    if (tls.serverName) lines.push(`KAFKA_TLS_SERVER_NAME=${tls.serverName}`);
    if (tls.insecureSkipVerify) lines.push("KAFKA_TLS_INSECURE_SKIP_VERIFY=true (certificates are NOT verified)");
  }
  if (sasl) {
    lines.push(`KAFKA_SASL_MECHANISM=${sasl.mechanism}`);
    if (sasl.mechanism === "OAUTHBEARER") {
      lines.push(
        `KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL=${sasl.tokenEndpointUrl}`,
        `KAFKA_SASL_OAUTHBEARER_CLIENT_ID=${sasl.clientId}`,
        `KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET=${shownSecret(sasl.clientSecretSource)}`,
      );
      if (sasl.scope) lines.push(`KAFKA_SASL_OAUTHBEARER_SCOPE=${sasl.scope}`);
    } else {
      lines.push(`KAFKA_SASL_USERNAME=${sasl.username}`, `KAFKA_SASL_PASSWORD=${shownSecret(sasl.passwordSource)}`);
    }
  }
  return lines;
}
