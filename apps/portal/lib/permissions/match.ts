// Token permissions exactly as the gateway reads them (PROTOCOL.md "Tokens and
// permissions", apps/gateway/internal/auth/permissions.go): an entry is a
// canonical endpoint path or a prefix ending in `/*` that matches every path
// strictly below it. The portal validates grants and token requests with this
// module, so it never mints a token the gateway would reject. Pure: no I/O.

export type PermissionList = "sub" | "pub" | "all";
export type PermissionsClaim = Partial<Record<PermissionList, string[]>>;
export type Op = "subscribe" | "publish";

export interface Pattern {
  /** The entry in canonical form (`/prices/BRK.B`, `/prices/*`). */
  canonical: string;
  /** For a wildcard, the canonical prefix it matches (ending in `/`; `/` for `/*`); null for an exact path. */
  prefix: string | null;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

const MAX_KEY_BYTES = 1024;
const TOPIC = /^[A-Za-z0-9._-]{1,249}$/;
const CONTROL = /\p{Cc}/u;

function validTopic(topic: string): string | undefined {
  if (!TOPIC.test(topic) || topic === "." || topic === "..")
    return `topic "${topic.slice(0, 80)}" is not a valid Kafka topic name (A-Z a-z 0-9 . _ -, at most 249)`;
  return undefined;
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** Percent-encodes every byte but the unreserved characters, as the gateway does. */
function escapeSegment(segment: string): string {
  let out = "";
  for (const byte of Buffer.from(segment, "utf8")) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** Parses a concrete endpoint path (`/topic/key…`) and returns its canonical form. */
export function canonicalPath(raw: string): Parsed<string> {
  if (!raw.startsWith("/")) return { ok: false, reason: "must start with /" };
  const segments = raw.slice(1).split("/");
  if (segments.length < 2) return { ok: false, reason: "needs a topic and a key (/topic/key)" };
  const decoded: string[] = [];
  for (const [i, s] of segments.entries()) {
    const d = decodeSegment(s);
    if (d === undefined) return { ok: false, reason: `segment ${i + 1} is not valid percent-encoding` };
    if (d === "") return { ok: false, reason: "has an empty segment" };
    if (d.includes("/")) return { ok: false, reason: `segment ${i + 1} encodes a '/'` };
    decoded.push(d);
  }
  const [topic, ...keyParts] = decoded as [string, ...string[]];
  const topicError = validTopic(topic);
  if (topicError) return { ok: false, reason: topicError };
  const key = keyParts.join("/");
  if (Buffer.byteLength(key, "utf8") > MAX_KEY_BYTES) return { ok: false, reason: `the key is longer than ${MAX_KEY_BYTES} bytes` };
  if (CONTROL.test(key)) return { ok: false, reason: "the key holds a control character" };
  return { ok: true, value: `/${topic}/${keyParts.map(escapeSegment).join("/")}` };
}

/** Validates one permission entry and canonicalises it (the gateway's parsePattern). */
export function parsePattern(entry: string): Parsed<Pattern> {
  if (entry === "") return { ok: false, reason: "is empty" };
  if (!entry.startsWith("/")) return { ok: false, reason: "must start with /" };
  const star = entry.indexOf("*");
  if (star >= 0) {
    if (star !== entry.length - 1 || !entry.endsWith("/*"))
      return { ok: false, reason: "* is allowed only as the whole last segment (/topic/*); write a literal * as %2A" };
    const rest = entry.slice(0, -2);
    if (rest === "") return { ok: true, value: { canonical: "/*", prefix: "/" } };
    if (!rest.slice(1).includes("/")) {
      const topic = decodeSegment(rest.slice(1));
      if (topic === undefined) return { ok: false, reason: "the topic is not valid percent-encoding" };
      const topicError = validTopic(topic);
      if (topicError) return { ok: false, reason: topicError };
      return { ok: true, value: { canonical: `/${topic}/*`, prefix: `/${topic}/` } };
    }
    const path = canonicalPath(rest);
    if (!path.ok) return { ok: false, reason: `not an endpoint prefix: ${path.reason}` };
    return { ok: true, value: { canonical: `${path.value}/*`, prefix: `${path.value}/` } };
  }
  const path = canonicalPath(entry);
  if (!path.ok) return { ok: false, reason: `not an endpoint path: ${path.reason}` };
  return { ok: true, value: { canonical: path.value, prefix: null } };
}

/** Whether one pattern matches a canonical endpoint path. */
export function patternMatches(pattern: Pattern, path: string): boolean {
  return pattern.prefix === null ? pattern.canonical === path : path.startsWith(pattern.prefix);
}

/**
 * Whether a permissions claim allows `op` on a canonical path: subscribe by sub
 * and all, publish by pub and all. An invalid entry anywhere refuses everything
 * (the gateway rejects such a token outright).
 */
export function allows(permissions: PermissionsClaim, op: Op, path: string): boolean {
  const lists: PermissionList[] = op === "subscribe" ? ["sub", "all"] : ["pub", "all"];
  const parsed: Pattern[] = [];
  for (const list of ["sub", "pub", "all"] as const) {
    for (const entry of permissions[list] ?? []) {
      const p = parsePattern(entry);
      if (!p.ok) return false;
      if (lists.includes(list)) parsed.push(p.value);
    }
  }
  return parsed.some((p) => patternMatches(p, path));
}

/**
 * Whether a grant pattern covers a requested entry: an exact path is covered by
 * an equal grant or a wildcard above it; a wildcard only by an equal or broader
 * wildcard. Both in parsed (canonical) form.
 */
export function covers(grant: Pattern, requested: Pattern): boolean {
  if (grant.prefix === null) return requested.prefix === null && requested.canonical === grant.canonical;
  return (requested.prefix ?? requested.canonical).startsWith(grant.prefix);
}

/** The operations a permission list needs from a grant. */
export const OPERATIONS_OF: Record<PermissionList, Op[]> = {
  sub: ["subscribe"],
  pub: ["publish"],
  all: ["subscribe", "publish"],
};
