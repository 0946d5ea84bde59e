// The live console's pure parts: which concrete path a key makes, how a message
// is shown, what the publish form sends, and where a replay starts. Kept out of
// the React component so they are unit-tested without a browser.
import type { From, Position } from "@sluice/sdk";

import { compileJsonSchema, describeErrors } from "../validation/json-schema";

export interface ConsoleEndpoint {
  path: string;
  topic: string;
  /** The exact key, or null for a parameterised endpoint (the user types a key). */
  key: string | null;
  keyParam: string | null;
  /** The registry formats travel as JSON, like json. */
  payloadFormat: "json" | "text" | "bytes" | "avro" | "protobuf" | "json-schema";
  jsonSchema: Record<string, unknown> | null;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; field: string; message: string };

/**
 * The concrete path the console subscribes and publishes to. An exact endpoint is
 * its own path; a parameterised one needs a key, whose `/`-separated segments are
 * percent-encoded one by one (the gateway canonicalises the rest).
 */
export function concretePath(endpoint: ConsoleEndpoint, typedKey: string): Checked<string> {
  if (endpoint.key !== null) return { ok: true, value: endpoint.path };
  const key = typedKey.trim();
  if (!key) return { ok: false, field: "key", message: `enter a value for {${endpoint.keyParam}}: the record key to follow` };
  const segments = key.split("/");
  if (segments.some((s) => s === "")) return { ok: false, field: "key", message: "a key segment between slashes may not be empty" };
  if ([...key].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f))
    return { ok: false, field: "key", message: "may not contain control characters" };
  if (new TextEncoder().encode(key).length > 1024) return { ok: false, field: "key", message: "must be at most 1024 bytes" };
  return { ok: true, value: `/${endpoint.topic}/${segments.map(encodeURIComponent).join("/")}` };
}

/** The record key of a canonical path (everything after the topic, decoded). */
export function keyOfPath(path: string): string {
  return path
    .split("/")
    .slice(2)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    })
    .join("/");
}

/** Whether the endpoint's messages travel as JSON (json, and the registry formats, decoded by the gateway). */
export const travelsAsJson = (endpoint: Pick<ConsoleEndpoint, "payloadFormat">): boolean =>
  endpoint.payloadFormat !== "text" && endpoint.payloadFormat !== "bytes";

/**
 * A message payload as text: JSON pretty-printed, text as is, bytes as hex. A
 * message the gateway could not decode (a registry format: schema id unknown,
 * registry away, data not fitting the schema) carries the reason in `error` and
 * its raw record value as bytes: shown as base64, the way the gateway sent it,
 * with the reason beside it.
 */
export function formatPayload(
  data: unknown,
  error?: string,
): { text: string; kind: "json" | "text" | "bytes" | "undecoded"; error?: string } {
  if (error !== undefined) {
    const raw = data instanceof Uint8Array ? data : new Uint8Array();
    const shown = raw.subarray(0, 4096);
    let binary = "";
    for (const b of shown) binary += String.fromCharCode(b);
    return { text: `${btoa(binary)}${raw.length > shown.length ? " …" : ""}`, kind: "undecoded", error };
  }
  if (data instanceof Uint8Array) {
    const shown = Array.from(data.subarray(0, 256), (b) => b.toString(16).padStart(2, "0")).join(" ");
    return { text: `${data.length} bytes: ${shown}${data.length > 256 ? " …" : ""}`, kind: "bytes" };
  }
  if (typeof data === "string") return { text: data, kind: "text" };
  return { text: JSON.stringify(data, null, 2) ?? String(data), kind: "json" };
}

/** Arrival time as HH:MM:SS.mmm in the browser's time zone. */
export function formatArrival(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/**
 * What the publish form sends: parsed JSON validated against the endpoint's
 * schema (errors name the field, e.g. `payload/price`), text as typed, bytes from
 * base64.
 */
export function preparePublish(endpoint: ConsoleEndpoint, raw: string): Checked<unknown> {
  // A registry format is published as JSON too: the gateway encodes it with the
  // endpoint's subject and answers 4022 naming the field when it does not fit.
  if (endpoint.payloadFormat === "text") return { ok: true, value: raw };
  if (endpoint.payloadFormat === "bytes") {
    const compact = raw.replace(/\s+/g, "");
    if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(compact)) {
      return { ok: false, field: "payload", message: "must be base64 (the bytes to publish)" };
    }
    return { ok: true, value: Uint8Array.from(atob(compact), (c) => c.charCodeAt(0)) };
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    return { ok: false, field: "payload", message: `is not valid JSON: ${(err as Error).message}` };
  }
  if (endpoint.jsonSchema) {
    const compiled = compileJsonSchema(endpoint.jsonSchema);
    if (compiled.ok && !compiled.validate(value)) {
      const first = compiled.validate.errors?.[0];
      return {
        ok: false,
        field: `payload${first?.instancePath ?? ""}`,
        message: `does not match the endpoint's schema: ${describeErrors(compiled.validate.errors)}`,
      };
    }
  }
  return { ok: true, value };
}

/** The replay form: from an offset of the subscribed partition, or from a time. */
export type ReplayRequest = { kind: "offset"; offset: string } | { kind: "time"; time: string };

/**
 * Where a replay starts. A key lives in one partition, so an offset needs only
 * the partition and epoch the gateway reported when subscribing; delivery starts
 * right after a position, hence `seq: offset - 1`.
 */
export function replayFrom(
  request: ReplayRequest,
  current: { epoch: string; partition: number } | null,
  nowMs = Date.now(),
): Checked<From> {
  if (request.kind === "time") {
    const ms = Date.parse(request.time);
    if (!request.time || Number.isNaN(ms)) return { ok: false, field: "replayTime", message: "enter a date and time" };
    if (ms > nowMs) return { ok: false, field: "replayTime", message: "is in the future; pick a time in the past" };
    return { ok: true, value: { time: ms } };
  }
  if (!/^\d+$/.test(request.offset.trim()))
    return { ok: false, field: "replayOffset", message: "must be a whole number (a Kafka offset, 0 or more)" };
  const offset = Number(request.offset.trim());
  if (!Number.isSafeInteger(offset)) return { ok: false, field: "replayOffset", message: "is too large" };
  if (offset === 0) return { ok: true, value: "earliest" };
  if (!current)
    return {
      ok: false,
      field: "replayOffset",
      message: "subscribe first: the offset belongs to the key's partition, which the gateway reports on subscribing",
    };
  const position: Position = { epoch: current.epoch, partition: current.partition, seq: offset - 1 };
  return { ok: true, value: position };
}

/**
 * Messages per second over the last second, in ten 100 ms buckets: constant
 * memory whatever the rate.
 */
export class RateMeter {
  private readonly counts = new Array<number>(10).fill(0);
  private bucket = -1;

  add(atMs: number): void {
    this.advance(atMs);
    this.counts[this.bucket % 10]!++;
  }

  rate(nowMs: number): number {
    this.advance(nowMs);
    return this.counts.reduce((a, b) => a + b, 0);
  }

  private advance(atMs: number): void {
    const b = Math.floor(atMs / 100);
    if (this.bucket < 0 || b - this.bucket >= 10) this.counts.fill(0);
    else for (let i = this.bucket + 1; i <= b; i++) this.counts[i % 10] = 0;
    if (b > this.bucket) this.bucket = b;
  }
}
