// Password hashing with scrypt from node:crypto (no native add-on to build).
// Parameters follow OWASP's scrypt recommendation (N=2^17, r=8, p=1: 128 MiB and
// a few hundred milliseconds per hash). They are stored in every hash, so raising
// them later only affects new hashes and old ones still verify.
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from "node:crypto";

import { invalid } from "../errors";
import { passwordProblem } from "../validation/password-rules";

const scrypt = (password: string, salt: Buffer, keylen: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCallback(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))),
  );

const PARAMS = { N: 2 ** 17, r: 8, p: 1 };
const KEY_LENGTH = 32;

const maxmem = (N: number, r: number) => 128 * N * r + 16 * 1024 * 1024;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, { ...PARAMS, maxmem: maxmem(PARAMS.N, PARAMS.r) });
  return ["scrypt", PARAMS.N, PARAMS.r, PARAMS.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  const expected = Buffer.from(hash, "base64url");
  const key = await scrypt(password.normalize("NFKC"), Buffer.from(salt, "base64url"), expected.length, {
    ...params,
    maxmem: maxmem(params.N, params.r),
  });
  return timingSafeEqual(key, expected);
}

/** A hash of nothing, verified against when the e-mail is unknown, so timing does not reveal which e-mails exist. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(Math.random().toString(36));
  return decoy;
}

/** The shared rules (validation/password-rules) for a password that does not come through a form or the API. */
export function checkPasswordPolicy(password: string, field = "password"): void {
  const problem = passwordProblem(password);
  if (problem) throw invalid(field, problem);
}
