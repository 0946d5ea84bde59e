// Authenticated encryption for secrets at rest (signing keys' private JWKs):
// AES-256-GCM under SLUICE_SECRET_KEY, a fresh random 96-bit IV per value, and
// a caller-chosen context (the kid) as additional authenticated data, so a
// ciphertext copied onto another key's row does not decrypt. The text format is
// versioned (`v1.<iv>.<ciphertext>.<tag>`, base64url) so the scheme can change
// without guessing what old rows hold.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Decryption failed: wrong key, altered data, wrong context or an unknown format. Never returns partial plaintext. */
export class SecretBoxError extends Error {
  override readonly name = "SecretBoxError";
}

function checkKey(key: Buffer): void {
  if (key.length !== 32) throw new SecretBoxError("the encryption key must be 32 bytes");
}

export function seal(plaintext: string, context: string, key: Buffer): string {
  checkKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(context, "utf8"));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return [VERSION, iv.toString("base64url"), body.toString("base64url"), cipher.getAuthTag().toString("base64url")].join(".");
}

export function open(sealed: string, context: string, key: Buffer): string {
  checkKey(key);
  const parts = sealed.split(".");
  if (parts[0] !== VERSION)
    throw new SecretBoxError(`unknown format ${JSON.stringify(parts[0]?.slice(0, 10) ?? "")} (expected ${VERSION})`);
  if (parts.length !== 4) throw new SecretBoxError("malformed ciphertext");
  const [, ivText, bodyText, tagText] = parts as [string, string, string, string];
  const iv = Buffer.from(ivText, "base64url");
  const tag = Buffer.from(tagText, "base64url");
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretBoxError("malformed ciphertext");
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(Buffer.from(bodyText, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    throw new SecretBoxError("cannot decrypt: the key is not the one it was encrypted with, or the data was altered");
  }
}
