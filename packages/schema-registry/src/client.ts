// A small client for a schema registry's Confluent-compatible REST API
// (Confluent Schema Registry, Karapace, Apicurio's /apis/ccompat/v7): what the
// portal needs to offer subjects, check a subject and version, and show a
// schema. Built on node:http(s), so the TLS files of the settings go straight
// into an https.Agent and no HTTP library is needed.
//
// Failures come in two kinds the caller treats differently: "not_found" (the
// registry answered that the subject, version or schema does not exist:
// error codes 40401, 40402, 40403) and "unavailable" (no answer in time, an
// error status, refused credentials, an answer that is not the registry's).
// Messages name SCHEMA_REGISTRY_URL and never carry a credential.
import http from "node:http";
import https from "node:https";

import type { RegistrySettings } from "./settings.ts";

/** Schema types as the registry names them; an answer without schemaType is AVRO. */
export type SchemaType = "AVRO" | "PROTOBUF" | "JSON";

/** One schema reference: a Protobuf import, an Avro named type, a JSON Schema $ref. */
export interface SchemaReference {
  name: string;
  subject: string;
  version: number;
}

/** A schema by its id. */
export interface RegisteredSchema {
  id: number;
  schemaType: SchemaType;
  /** The schema text: Avro JSON, a .proto file, or a JSON Schema. */
  schema: string;
  references: SchemaReference[];
}

/** One version of a subject. */
export interface SubjectVersion extends RegisteredSchema {
  subject: string;
  version: number;
}

/** The registry's error codes for "there is no such thing". */
export const NOT_FOUND_CODES = { subject: 40401, version: 40402, schema: 40403 } as const;

/**
 * RegistryError is every failure of a request. `kind` "not_found" is final (the
 * registry said the subject, version or schema does not exist); "unavailable"
 * may pass (retry later). `registryCode` is the registry's error_code when it
 * sent one.
 */
export class RegistryError extends Error {
  override name = "RegistryError";
  constructor(
    readonly kind: "not_found" | "unavailable",
    message: string,
    readonly status?: number,
    readonly registryCode?: number,
  ) {
    super(message);
  }
}

/**
 * Whether err is a RegistryError, told by its name rather than instanceof: a
 * bundler may load this module twice (Next.js does, in its server layers) and a
 * client kept on globalThis then throws the other copy's class.
 */
export function isRegistryError(err: unknown): err is RegistryError {
  return err instanceof Error && err.name === "RegistryError" && "kind" in err;
}

export const DEFAULT_TIMEOUT_MS = 5_000;
/** Answers larger than this are refused: a schema is kilobytes, a subject list at most a few megabytes. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

const SCHEMA_TYPES: readonly SchemaType[] = ["AVRO", "PROTOBUF", "JSON"];

export class RegistryClient {
  readonly url: string;
  readonly #base: URL;
  readonly #agent: http.Agent;
  readonly #authorization?: string;
  readonly #timeoutMs: number;

  constructor(settings: RegistrySettings, options: { timeoutMs?: number } = {}) {
    this.url = settings.url;
    this.#base = new URL(`${settings.url}/`);
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const https_ = this.#base.protocol === "https:";
    this.#agent = https_
      ? new https.Agent({ keepAlive: true, ca: settings.tls?.ca?.pem, cert: settings.tls?.cert?.pem, key: settings.tls?.key?.pem })
      : new http.Agent({ keepAlive: true });
    const { auth } = settings;
    if (auth.kind === "basic") this.#authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString("base64")}`;
    else if (auth.kind === "bearer") this.#authorization = `Bearer ${auth.token}`;
  }

  /** Every subject, sorted. */
  async subjects(): Promise<string[]> {
    const body = await this.#get("subjects");
    if (!Array.isArray(body) || !body.every((s) => typeof s === "string")) throw this.#malformed("subjects", "a list of subject names");
    return [...body].sort();
  }

  /** A subject's version numbers, ascending; not_found (40401) when the subject does not exist. */
  async versions(subject: string): Promise<number[]> {
    const path = `subjects/${encodeURIComponent(subject)}/versions`;
    const body = await this.#get(path);
    if (!Array.isArray(body) || !body.every((v) => Number.isInteger(v))) throw this.#malformed(path, "a list of version numbers");
    return [...(body as number[])].sort((a, b) => a - b);
  }

  /** One version of a subject, or its latest; not_found (40401 subject, 40402 version) when missing. */
  async version(subject: string, version: number | "latest"): Promise<SubjectVersion> {
    const path = `subjects/${encodeURIComponent(subject)}/versions/${version}`;
    const body = (await this.#get(path)) as Record<string, unknown> | null;
    const schema = this.#schema(path, body);
    if (typeof body?.subject !== "string" || !Number.isInteger(body.version) || !Number.isInteger(body.id)) {
      throw this.#malformed(path, "a subject version (subject, version, id, schema)");
    }
    return { subject: body.subject, version: body.version as number, id: body.id as number, ...schema };
  }

  /** A schema by id; not_found (40403) when no schema has that id. */
  async schemaById(id: number): Promise<RegisteredSchema> {
    const path = `schemas/ids/${id}`;
    const body = (await this.#get(path)) as Record<string, unknown> | null;
    return { id, ...this.#schema(path, body) };
  }

  /** Lets the process exit: closes the kept-alive connections. */
  close(): void {
    this.#agent.destroy();
  }

  #schema(path: string, body: Record<string, unknown> | null): Omit<RegisteredSchema, "id"> {
    if (typeof body?.schema !== "string") throw this.#malformed(path, "a schema");
    const schemaType = (body.schemaType ?? "AVRO") as SchemaType;
    if (!SCHEMA_TYPES.includes(schemaType)) throw this.#malformed(path, "schemaType AVRO, PROTOBUF or JSON");
    const references = Array.isArray(body.references) ? (body.references as SchemaReference[]) : [];
    return { schemaType, schema: body.schema, references };
  }

  #malformed(path: string, expected: string): RegistryError {
    return new RegistryError(
      "unavailable",
      `SCHEMA_REGISTRY_URL (${this.url}): GET /${path} did not answer ${expected}; is it the Confluent-compatible API?`,
    );
  }

  /** GET one path under the base URL within the timeout; the parsed JSON, or a RegistryError. */
  #get(path: string): Promise<unknown> {
    const target = new URL(path, this.#base);
    const where = `SCHEMA_REGISTRY_URL (${this.url}): GET /${path}`;
    const client = target.protocol === "https:" ? https : http;
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { accept: "application/vnd.schemaregistry.v1+json, application/json" };
      if (this.#authorization) headers.authorization = this.#authorization;
      const request = client.request(
        target,
        { method: "GET", headers, agent: this.#agent, signal: AbortSignal.timeout(this.#timeoutMs) },
        (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_BODY_BYTES) {
              response.destroy();
              reject(new RegistryError("unavailable", `${where}: the answer is larger than ${MAX_BODY_BYTES / 1024 / 1024} MB`));
            } else chunks.push(chunk);
          });
          response.on("error", (err) => reject(this.#transportError(where, err)));
          response.on("end", () => {
            const status = response.statusCode ?? 0;
            let body: unknown;
            try {
              body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
            } catch {
              body = undefined;
            }
            if (status >= 200 && status < 300 && body !== undefined) return resolve(body);
            reject(this.#statusError(path, where, status, body));
          });
        },
      );
      request.on("error", (err) => reject(this.#transportError(where, err)));
      request.end();
    });
  }

  #statusError(path: string, where: string, status: number, body: unknown): RegistryError {
    const { error_code: code, message } = (body ?? {}) as { error_code?: unknown; message?: unknown };
    const registryCode = typeof code === "number" ? code : undefined;
    // The registry's own message names the subject or id; it never echoes a credential.
    const said = typeof message === "string" && message !== "" ? `: ${message.slice(0, 300)}` : "";
    if (status === 404 && registryCode !== undefined && Object.values(NOT_FOUND_CODES).includes(registryCode as 40401)) {
      return new RegistryError("not_found", `${where}: not found (${registryCode})${said}`, status, registryCode);
    }
    if (status === 401 || status === 403) {
      return new RegistryError("unavailable", `${where}: the registry refused the credentials (HTTP ${status})`, status, registryCode);
    }
    if (status >= 200 && status < 300) return this.#malformed(path, "JSON");
    const hint = status === 404 ? "; is SCHEMA_REGISTRY_URL the base of the Confluent-compatible API?" : "";
    return new RegistryError("unavailable", `${where}: HTTP ${status}${said}${hint}`, status, registryCode);
  }

  #transportError(where: string, err: Error): RegistryError {
    const e = err as NodeJS.ErrnoException;
    const detail =
      e.name === "AbortError" || e.name === "TimeoutError"
        ? `no answer within ${this.#timeoutMs / 1000} s`
        : e.code
          ? `${e.code}: ${e.message}`
          : e.message;
    return new RegistryError("unavailable", `${where}: ${detail}`);
  }
}
