// Random tokens and their stored form. Whatever a user holds (session cookie, API
// key, one-time link) is 32 random bytes; the database keeps only the SHA-256, so
// reading the database never yields a usable credential. SHA-256 without salt is
// right here because the input is high-entropy, unlike a password.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

export function sha256(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
