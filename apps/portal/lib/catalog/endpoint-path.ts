// Endpoint paths as packages/protocol/PROTOCOL.md defines them: the first segment
// is the Kafka topic, the rest is the record key (each segment percent-decoded on
// its own), or a single `{param}` segment covering every key of the topic. The
// portal stores the canonical path, so `/prices/BRK%2eB` and `/prices/BRK.B` are
// one endpoint and the unique constraint on `path` sees them as one.

/** Kafka's rule for topic names (the same rule as the endpoints_topic_format constraint). */
export const TOPIC_NAME = /^[A-Za-z0-9._-]{1,249}$/;
/** The rule of the endpoints_key_param_format constraint. */
export const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
export const KEY_MAX_BYTES = 1024;

export interface ParsedPath {
  /** The canonical path, as stored and as the gateway compares it. */
  path: string;
  topic: string;
  /** The exact record key, or null for a parameterised endpoint. */
  key: string | null;
  /** The parameter name of `/topic/{param}`, or null for an exact key. */
  keyParam: string | null;
}

/** Why a part is refused; `null` means it is fine. Messages complete "<field> …". */
export function topicProblem(topic: string): string | null {
  if (topic === "") return "is required";
  if (topic === "." || topic === "..") return "may not be . or ..";
  if (!TOPIC_NAME.test(topic)) return "must be 1–249 characters of A–Z a–z 0–9 . _ - (Kafka's rule for topic names)";
  return null;
}

export function keyProblem(key: string): string | null {
  if (key === "") return "is required";
  if (Buffer.byteLength(key, "utf8") > KEY_MAX_BYTES) return `must be at most ${KEY_MAX_BYTES} bytes (UTF-8)`;
  if (/\p{Cc}/u.test(key)) return "may not contain control characters";
  if (/[\uD800-\uDFFF]/.test(key.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ""))) return "must be valid UTF-8 text";
  if (key.split("/").some((segment) => segment === ""))
    return "may not start or end with / or contain //: every / separates two non-empty segments of the path";
  return null;
}

export function paramProblem(name: string): string | null {
  if (name === "") return "is required";
  if (!PARAM_NAME.test(name))
    return "must start with a letter or _ and contain only letters, digits and _ (at most 64 characters), e.g. symbol";
  return null;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** One key segment in canonical form: UTF-8 bytes percent-encoded (upper-case hex) except unreserved characters. */
export function encodeSegment(segment: string): string {
  let out = "";
  for (const byte of Buffer.from(segment, "utf8")) {
    const ch = String.fromCharCode(byte);
    out += byte < 0x80 && UNRESERVED.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** The canonical path of a topic plus an exact key or a parameter. Assumes both are valid. */
export function buildPath(topic: string, target: { key: string } | { keyParam: string }): string {
  if ("keyParam" in target) return `/${topic}/{${target.keyParam}}`;
  return `/${topic}/${target.key.split("/").map(encodeSegment).join("/")}`;
}

export class PathError extends Error {
  override readonly name = "PathError";
}

/**
 * Parses a path such as `/vehicles/1/speed` or `/prices/{symbol}`. Throws a
 * PathError whose message completes "path …" when the path is not an endpoint.
 */
export function parseEndpointPath(raw: string): ParsedPath {
  if (!raw.startsWith("/")) throw new PathError("must start with /, e.g. /prices/AAPL or /prices/{symbol}");
  const segments = raw.slice(1).split("/");
  if (segments.length < 2) throw new PathError("needs a topic and a key: /topic/key or /topic/{param}");
  const [rawTopic, ...rawKey] = segments as [string, ...string[]];
  const topic = decodeSegment(rawTopic, "topic");
  const topicIssue = topicProblem(topic);
  if (topicIssue) throw new PathError(`topic ${topicIssue}`);

  if (rawKey.length === 1 && rawKey[0]!.startsWith("{") && rawKey[0]!.endsWith("}")) {
    const keyParam = rawKey[0]!.slice(1, -1);
    const issue = paramProblem(keyParam);
    if (issue) throw new PathError(`parameter name ${issue}`);
    return { path: buildPath(topic, { keyParam }), topic, key: null, keyParam };
  }
  if (rawKey.some((s) => s.includes("{") || s.includes("}"))) {
    throw new PathError(
      "may use { } only for a whole parameter segment such as /prices/{symbol}; write a literal brace in a key as %7B or %7D",
    );
  }
  const key = rawKey.map((s) => decodeSegment(s, "key")).join("/");
  const keyIssue = keyProblem(key);
  if (keyIssue) throw new PathError(`key ${keyIssue}`);
  return { path: buildPath(topic, { key }), topic, key, keyParam: null };
}

function decodeSegment(segment: string, what: string): string {
  if (segment === "") throw new PathError(`has an empty ${what} segment (// or a trailing /)`);
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    throw new PathError(`has a ${what} segment that is not valid percent-encoded UTF-8: ${segment}`);
  }
  if (decoded === "") throw new PathError(`has an empty ${what} segment`);
  if (decoded.includes("/")) throw new PathError(`may not contain an encoded / (%2F) in a ${what} segment`);
  return decoded;
}
