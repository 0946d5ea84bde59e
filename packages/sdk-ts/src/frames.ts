/**
 * Frames of the WebSocket protocol (PROTOCOL.md, "WebSocket"): encoding of what
 * the client sends, decoding of what the server sends, and — for the fake server
 * and the shared vectors — decoding of client frames the way the gateway does.
 */
import { Codes, ProtocolError } from "./errors.js";
import { parsePath } from "./paths.js";

/** The WebSocket subprotocol of protocol version 1. */
export const SUBPROTOCOL = "sluice.v1";
/** The largest frame the gateway accepts, in bytes. */
export const MAX_FRAME_BYTES = 1 << 20;
const MAX_ID_LENGTH = 64;

/** Where a message lives: Kafka partition offset (`seq`) within a topic incarnation (`epoch`). */
export interface Position {
  epoch: string;
  partition: number;
  seq: number;
}

/** Where a subscription starts (PROTOCOL.md, "Subscribing"). */
export type From = "latest" | "earliest" | { time: number } | Position;

// ---- client frames ---------------------------------------------------------

export type ClientFrame =
  | { type: "auth"; id?: string; token: string }
  | { type: "refresh"; id?: string; token: string }
  | { type: "subscribe"; id?: string; endpoint: string; from?: From }
  | { type: "unsubscribe"; id?: string; endpoint: string }
  | { type: "publish"; id?: string; endpoint: string; data: unknown; encoding?: "base64" }
  | { type: "ping"; id?: string };

/**
 * encodeClientFrame writes the JSON text of a client frame, fields in the order
 * PROTOCOL.md shows them. An absent `id` or `from` is left out.
 */
export function encodeClientFrame(frame: ClientFrame): string {
  const out: Record<string, unknown> = { type: frame.type };
  if (frame.id !== undefined && frame.id !== "") out.id = frame.id;
  switch (frame.type) {
    case "auth":
    case "refresh":
      out.token = frame.token;
      break;
    case "subscribe":
      out.endpoint = frame.endpoint;
      if (frame.from !== undefined) out.from = encodeFrom(frame.from);
      break;
    case "unsubscribe":
      out.endpoint = frame.endpoint;
      break;
    case "publish":
      out.endpoint = frame.endpoint;
      // `null` is a JSON value like any other; only `undefined` has no encoding.
      out.data = frame.data === undefined ? null : frame.data;
      if (frame.encoding) out.encoding = frame.encoding;
      break;
    case "ping":
      break;
  }
  return JSON.stringify(out);
}

function encodeFrom(from: From): unknown {
  if (typeof from === "string") return from;
  if ("time" in from) return { time: from.time };
  return { epoch: from.epoch, partition: from.partition, seq: from.seq };
}

/** A client frame as the gateway reads it (the shape of vectors/frames.json). */
export interface DecodedClientFrame {
  type: ClientFrame["type"];
  id: string;
  token?: string;
  /** Canonical path. */
  endpoint?: string;
  from?: From;
  /**
   * For publish: the record value the gateway would write — a string `data` as
   * itself (dataIsString), anything else as its JSON text; with `encoding`
   * base64, the base64 text (not yet decoded).
   */
  data?: string;
  dataIsString?: boolean;
  encoding?: "base64";
}

/** A client frame the gateway refuses: error 4000 (or 4013), with the id to echo. */
export class ClientFrameError extends ProtocolError {
  override name = "ClientFrameError";
  constructor(
    code: number,
    message: string,
    readonly id: string,
  ) {
    super(code, message);
  }
}

const CLIENT_TYPES = new Set(["auth", "refresh", "subscribe", "unsubscribe", "publish", "ping"]);

/**
 * decodeClientFrame validates a client frame like the gateway does
 * (vectors/frames.json). The SDK never needs it to talk; the fake server and the
 * vector tests do.
 */
export function decodeClientFrame(text: string): DecodedClientFrame {
  const fail = (message: string, id = ""): never => {
    throw new ClientFrameError(Codes.BadFrame, message, id);
  };
  if (new TextEncoder().encode(text).length > MAX_FRAME_BYTES) {
    throw new ClientFrameError(Codes.FrameTooLarge, `frame: larger than ${MAX_FRAME_BYTES} bytes`, "");
  }
  const trimmed = text.trim();
  if (!trimmed.startsWith("{")) fail("frame: not a JSON object");
  let raw: unknown;
  try {
    raw = JSON.parse(trimmed);
  } catch (err) {
    fail(`frame: not valid JSON (${(err as Error).message})`);
  }
  if (!isObject(raw)) return fail("frame: not a JSON object");
  if (!("type" in raw)) fail("type: missing");
  if (typeof raw.type !== "string") fail("type: must be a string");
  let id = "";
  if ("id" in raw) {
    if (typeof raw.id !== "string") fail("id: must be a string");
    id = raw.id as string;
    if (id.length > MAX_ID_LENGTH) fail(`id: longer than ${MAX_ID_LENGTH} characters`);
  }
  const type = raw.type as string;
  if (type === "") fail("type: missing", id);
  if (!CLIENT_TYPES.has(type)) {
    fail(`type: ${JSON.stringify(type)} is not one of auth, refresh, subscribe, unsubscribe, publish, ping`, id);
  }
  const frame: DecodedClientFrame = { type: type as ClientFrame["type"], id };
  switch (type) {
    case "auth":
    case "refresh": {
      const token = raw.token;
      if (typeof token !== "string" || token === "") fail("token: missing", id);
      frame.token = token as string;
      break;
    }
    case "subscribe":
    case "unsubscribe":
    case "publish": {
      const endpoint = raw.endpoint;
      if (endpoint === undefined || endpoint === null || endpoint === "") fail("endpoint: missing", id);
      if (typeof endpoint !== "string") fail("endpoint: must be a string", id);
      try {
        frame.endpoint = parsePath(endpoint as string).canonical;
      } catch (err) {
        fail((err as Error).message, id);
      }
      if (type === "subscribe") {
        try {
          frame.from = decodeFrom(raw.from);
        } catch (err) {
          fail((err as Error).message, id);
        }
      }
      if (type === "publish") decodePublishData(raw, frame, (m) => fail(m, id));
      break;
    }
  }
  return frame;
}

function decodeFrom(raw: unknown): From {
  if (raw === undefined || raw === null || raw === "latest") return "latest";
  if (raw === "earliest") return "earliest";
  if (typeof raw === "string") throw new Error(`from: ${JSON.stringify(raw)} is not "latest", "earliest", {"time"} or a position`);
  const shape = 'from: must be "latest", "earliest", {"time": ms} or {"epoch", "partition", "seq"} with integer numbers';
  if (!isObject(raw)) throw new Error(shape);
  for (const field of ["time", "partition", "seq"]) {
    const v = raw[field];
    if (v !== undefined && !Number.isInteger(v)) throw new Error(shape);
  }
  if (raw.epoch !== undefined && typeof raw.epoch !== "string") throw new Error(shape);
  if (raw.time !== undefined) {
    if ((raw.time as number) < 0) throw new Error("from.time: must be >= 0");
    return { time: raw.time as number };
  }
  if (raw.epoch === undefined || raw.epoch === "") throw new Error("from.epoch: missing");
  if (raw.partition === undefined) throw new Error("from.partition: missing");
  const partition = raw.partition as number;
  if (partition < 0 || partition > 0x7fffffff) throw new Error("from.partition: out of range");
  if (raw.seq === undefined) throw new Error("from.seq: missing");
  // -1 is the position before offset 0 (what "subscribed" says for an empty partition).
  if ((raw.seq as number) < -1) throw new Error("from.seq: must be >= -1");
  return { epoch: raw.epoch as string, partition, seq: raw.seq as number };
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function decodePublishData(raw: Record<string, unknown>, frame: DecodedClientFrame, fail: (m: string) => never): void {
  if (!("data" in raw)) fail("data: missing");
  const data = raw.data;
  const encoding = raw.encoding;
  if (encoding !== undefined && encoding !== null) {
    if (encoding !== "base64") fail(`encoding: ${JSON.stringify(encoding)} is not "base64"`);
    if (typeof data !== "string") fail("data: must be a base64 string when encoding is base64");
    if (!BASE64.test(data as string)) fail("data: not valid base64");
    frame.encoding = "base64";
    frame.data = data as string;
    return;
  }
  if (typeof data === "string") {
    frame.data = data;
    frame.dataIsString = true;
  } else {
    frame.data = JSON.stringify(data);
  }
}

// ---- server frames ---------------------------------------------------------

export interface AuthenticatedFrame {
  type: "authenticated";
  id?: string;
  app: string;
  /** Seconds since the epoch. */
  expires_at: number;
}
export interface SubscribedFrame {
  type: "subscribed";
  id?: string;
  endpoint: string;
  epoch: string;
  partition: number;
  /**
   * The offset just before the first message the subscription can deliver (-1:
   * before offset 0): resuming from {epoch, partition, seq} before any message
   * loses nothing. Absent from gateways older than this field.
   */
  seq?: number;
}
export interface UnsubscribedFrame {
  type: "unsubscribed";
  id?: string;
  endpoint: string;
  code?: number;
  reason?: string;
}
export interface MessageFrame {
  type: "message";
  endpoint: string;
  epoch: string;
  partition: number;
  seq: number;
  ts: number;
  data: unknown;
  encoding?: "base64";
  /** Why a schema-registry endpoint's record arrives undecoded (data is then its raw value, base64). */
  error?: string;
}
export interface GapFrame {
  type: "gap";
  endpoint: string;
  epoch: string;
  partition: number;
  from_seq: number;
  to_seq: number;
  reason: string;
}
export interface PublishedFrame {
  type: "published";
  id?: string;
  endpoint: string;
  epoch: string;
  partition: number;
  seq: number;
}
export interface PongFrame {
  type: "pong";
  id?: string;
}
export interface ErrorFrame {
  type: "error";
  id?: string;
  code: number;
  message: string;
}
export interface ClosingFrame {
  type: "closing";
  code: number;
  reason: string;
}

export type ServerFrame =
  | AuthenticatedFrame
  | SubscribedFrame
  | UnsubscribedFrame
  | MessageFrame
  | GapFrame
  | PublishedFrame
  | PongFrame
  | ErrorFrame
  | ClosingFrame;

type FieldKind = "string" | "int" | "any";
// Fields checked only when present: older gateways leave them out.
const OPTIONAL_INT_FIELDS: Partial<Record<ServerFrame["type"], string[]>> = { subscribed: ["seq"], unsubscribed: ["code"] };
const SERVER_FIELDS: Record<ServerFrame["type"], Record<string, FieldKind>> = {
  authenticated: { app: "string", expires_at: "int" },
  subscribed: { endpoint: "string", epoch: "string", partition: "int" },
  unsubscribed: { endpoint: "string" },
  message: { endpoint: "string", epoch: "string", partition: "int", seq: "int", ts: "int", data: "any" },
  gap: { endpoint: "string", epoch: "string", partition: "int", from_seq: "int", to_seq: "int", reason: "string" },
  published: { endpoint: "string", epoch: "string", partition: "int", seq: "int" },
  pong: {},
  error: { code: "int", message: "string" },
  closing: { code: "int", reason: "string" },
};

/**
 * decodeServerFrame parses a server frame. It returns null for a well-formed
 * frame of a type this SDK does not know (a newer gateway may add some: readers
 * ignore what they do not know) and throws a ProtocolError for anything malformed.
 */
export function decodeServerFrame(text: string): ServerFrame | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ProtocolError(Codes.BadFrame, "server frame: not valid JSON", { cause: err });
  }
  if (!isObject(raw) || typeof raw.type !== "string") {
    throw new ProtocolError(Codes.BadFrame, "server frame: not a JSON object with a type");
  }
  const fields = SERVER_FIELDS[raw.type as ServerFrame["type"]];
  if (!Object.hasOwn(SERVER_FIELDS, raw.type) || fields === undefined) return null;
  for (const [name, kind] of Object.entries(fields)) {
    const v = raw[name];
    const ok = kind === "string" ? typeof v === "string" : kind === "int" ? Number.isInteger(v) : v !== undefined;
    if (!ok) throw new ProtocolError(Codes.BadFrame, `server ${raw.type} frame: ${name} missing or not a ${kind}`);
  }
  for (const name of OPTIONAL_INT_FIELDS[raw.type as ServerFrame["type"]] ?? []) {
    if (raw[name] !== undefined && !Number.isInteger(raw[name])) {
      throw new ProtocolError(Codes.BadFrame, `server ${raw.type} frame: ${name} must be an integer`);
    }
  }
  if (raw.id !== undefined && typeof raw.id !== "string") {
    throw new ProtocolError(Codes.BadFrame, `server ${raw.type} frame: id must be a string`);
  }
  if (raw.type === "message" && raw.encoding !== undefined && raw.encoding !== "base64") {
    throw new ProtocolError(Codes.BadFrame, `server message frame: unknown encoding ${JSON.stringify(raw.encoding)}`);
  }
  if (raw.type === "message" && raw.error !== undefined && typeof raw.error !== "string") {
    throw new ProtocolError(Codes.BadFrame, "server message frame: error must be a string");
  }
  return raw as unknown as ServerFrame;
}

// ---- payloads --------------------------------------------------------------

/** bytesToBase64 encodes bytes as standard base64 (no runtime dependency: btoa). */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** base64ToBytes decodes standard base64. */
export function base64ToBytes(text: string): Uint8Array {
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
