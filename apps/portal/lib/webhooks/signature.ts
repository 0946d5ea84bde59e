// The signature of an outgoing webhook call, in the scheme receivers of
// Stripe-style webhooks already verify: `Sluice-Signature: t=<unix seconds>,
// v1=<hex HMAC-SHA256 of "<t>.<raw body>">`. The timestamp is signed with the
// body, so a receiver rejects replays older than its tolerance. Pure: no I/O.
import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "sluice-signature";

export function signPayload(secret: string, timestampSeconds: number, body: string): string {
  const mac = createHmac("sha256", secret).update(`${timestampSeconds}.${body}`).digest("hex");
  return `t=${timestampSeconds},v1=${mac}`;
}

/**
 * What a receiver does (documented in docs/portal.md, used by the tests): true when
 * the header's v1 matches the body and its timestamp is within `toleranceSeconds` of now.
 */
export function verifySignature(options: {
  secret: string;
  header: string;
  body: string;
  nowSeconds: number;
  toleranceSeconds?: number;
}): boolean {
  const parts = Object.fromEntries(
    options.header.split(",").map((p) => {
      const i = p.indexOf("=");
      return [p.slice(0, i).trim(), p.slice(i + 1).trim()];
    }),
  );
  const t = Number(parts.t);
  if (!Number.isSafeInteger(t) || typeof parts.v1 !== "string") return false;
  if (Math.abs(options.nowSeconds - t) > (options.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(signPayload(options.secret, t, options.body).split("v1=")[1]!, "hex");
  const sent = Buffer.from(parts.v1, "hex");
  return sent.length === expected.length && timingSafeEqual(sent, expected);
}

/**
 * The wait before retry number `failures` + 1: 30 s doubling per failure, at most an
 * hour. After MAX_WEBHOOK_ATTEMPTS attempts (about an hour in all) the delivery fails.
 */
export function retryDelaySeconds(failures: number): number {
  return Math.min(30 * 2 ** Math.max(0, failures - 1), 3600);
}

export const MAX_WEBHOOK_ATTEMPTS = 8;
