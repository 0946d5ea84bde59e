// The active private key, decrypted in memory for one signature and never
// written anywhere. A wrong SLUICE_SECRET_KEY fails closed with a clear 500.
import { signingKeys, type SigningKey } from "@sluice/db";
import { eq } from "drizzle-orm";
import { importJWK, type JWK } from "jose";

import { secretKey } from "../../config";
import { open, SecretBoxError } from "../../crypto/secret-box";
import type { DbOrTx } from "../../db";
import { AppError } from "../../errors";

export async function decryptSigningKey(
  key: Pick<SigningKey, "kid" | "algorithm" | "privateKeyCiphertext">,
  encryptionKey: Buffer = secretKey(),
) {
  let jwk: JWK;
  try {
    jwk = JSON.parse(open(key.privateKeyCiphertext, key.kid, encryptionKey)) as JWK;
  } catch (err) {
    if (!(err instanceof SecretBoxError)) throw err;
    throw new AppError(
      "misconfigured",
      500,
      `The signing key ${key.kid} cannot be decrypted with SLUICE_SECRET_KEY (${err.message}). Restore the SLUICE_SECRET_KEY it was created with, or have an admin rotate the signing key.`,
    );
  }
  return importJWK(jwk, key.algorithm);
}

/** The active key row, locked against rotation until the caller's transaction ends. */
export async function loadActiveSigningKey(tx: DbOrTx) {
  const [row] = await tx.select().from(signingKeys).where(eq(signingKeys.status, "active")).for("share");
  return row;
}
