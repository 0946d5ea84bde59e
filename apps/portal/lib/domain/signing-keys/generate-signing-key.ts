// Generates an ES256 key pair and stores it as the active signing key: the public
// JWK in the clear (it goes to every gateway), the private JWK only sealed under
// SLUICE_SECRET_KEY with the kid as context. The caller holds the signing-key lock.
import { randomBytes } from "node:crypto";

import { signingKeys, type SigningKey } from "@sluice/db";
import { exportJWK, generateKeyPair } from "jose";

import type { Actor } from "../../auth/actor";
import { signingKeyRecord } from "../../catalog/records";
import { recordChange } from "../../outbox/record-change";
import { secretKey } from "../../config";
import { seal } from "../../crypto/secret-box";
import type { Tx } from "../../db";

export const SIGNING_ALGORITHM = "ES256";

/** Readable and unique: the creation date plus 32 random bits, e.g. `2026-11-22-9f3a61c2`. */
export function newKid(now = new Date()): string {
  return `${now.toISOString().slice(0, 10)}-${randomBytes(4).toString("hex")}`;
}

export async function generateSigningKey(options: { tx: Tx; actor: Actor; encryptionKey?: Buffer }): Promise<SigningKey> {
  const encryptionKey = options.encryptionKey ?? secretKey();
  const kid = newKid();
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
  const { kty, crv, x, y } = await exportJWK(publicKey);
  const publicJwk = { kty, crv, x, y };
  const privateJwk = await exportJWK(privateKey);
  const [row] = await options.tx
    .insert(signingKeys)
    .values({
      kid,
      algorithm: SIGNING_ALGORITHM,
      publicJwk,
      privateKeyCiphertext: seal(JSON.stringify(privateJwk), kid, encryptionKey),
      status: "active",
    })
    .returning();
  await recordChange(options.tx, options.actor, {
    action: "signing_key.create",
    entityType: "signing_key",
    entityId: kid,
    after: row,
    catalog: [signingKeyRecord(row!)],
  });
  return row!;
}

/** Serialises key generation and rotation across portal instances. */
export const SIGNING_KEY_LOCK = "sluice.signing_keys";
