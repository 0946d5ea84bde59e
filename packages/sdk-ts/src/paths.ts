/**
 * Endpoint paths (PROTOCOL.md, "Endpoints and paths"). The gateway answers with
 * canonical paths, so the SDK canonicalises what the caller wrote to route
 * messages to the right subscription (`/prices/BRK%2eB` and `/prices/BRK.B` are
 * one endpoint) and to refuse a bad path before it travels.
 */
import { Codes, ProtocolError } from "./errors.js";

export interface EndpointPath {
  topic: string;
  key: string;
  /** `/` + topic + `/` + each key segment's UTF-8 bytes percent-encoded (unreserved kept). */
  canonical: string;
}

const MAX_KEY_BYTES = 1024;
const TOPIC_CHARS = /^[A-Za-z0-9._-]+$/;
// Go's unicode.IsControl, which the gateway uses: C0, DEL and C1.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this pattern's job (they are refused in paths).
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const utf8 = new TextEncoder();

function bad(message: string): ProtocolError {
  return new ProtocolError(Codes.BadFrame, `endpoint: ${message}`);
}

/** parsePath reads an endpoint path; it throws a ProtocolError (4000) naming what is wrong. */
export function parsePath(raw: string): EndpointPath {
  if (!raw.startsWith("/")) throw bad(`${JSON.stringify(raw)} must start with /`);
  const segments = raw.slice(1).split("/");
  if (segments.length < 2) throw bad(`${JSON.stringify(raw)} needs a topic and a key (/topic/key)`);
  const decoded = segments.map((segment, i) => {
    let d: string;
    try {
      d = decodeURIComponent(segment);
    } catch {
      // Malformed percent-encoding, or bytes that are not UTF-8.
      throw bad(`segment ${i + 1} of ${JSON.stringify(raw)} is not valid percent-encoded UTF-8`);
    }
    if (d === "") throw bad(`${JSON.stringify(raw)} has an empty segment`);
    if (d.includes("/")) throw bad(`segment ${i + 1} of ${JSON.stringify(raw)} encodes a '/'`);
    return d;
  });
  const topic = decoded[0] as string;
  const keySegments = decoded.slice(1);
  const key = keySegments.join("/");
  if (topic.length > 249 || topic === "." || topic === ".." || !TOPIC_CHARS.test(topic)) {
    throw bad(`topic ${JSON.stringify(topic)} is not a valid Kafka topic name (A-Z a-z 0-9 . _ -)`);
  }
  if (utf8.encode(key).length > MAX_KEY_BYTES) throw bad(`key is longer than ${MAX_KEY_BYTES} bytes`);
  if (CONTROL.test(key)) throw bad("key holds a control character");
  return { topic, key, canonical: `/${topic}/${keySegments.map(escapeSegment).join("/")}` };
}

/** canonicalPath is parsePath(raw).canonical. */
export function canonicalPath(raw: string): string {
  return parsePath(raw).canonical;
}

function escapeSegment(segment: string): string {
  let out = "";
  for (const byte of utf8.encode(segment)) {
    const unreserved =
      (byte >= 0x61 && byte <= 0x7a) ||
      (byte >= 0x41 && byte <= 0x5a) ||
      (byte >= 0x30 && byte <= 0x39) ||
      byte === 0x2d ||
      byte === 0x2e ||
      byte === 0x5f ||
      byte === 0x7e;
    out += unreserved ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}
