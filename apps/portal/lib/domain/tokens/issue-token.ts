// Signs a token and records it: the one place that turns permissions into a JWT.
// Callers decide what the permissions are (an app's grants for mintToken, one
// endpoint for the live console) and hold a share lock on the app, so "revoke
// all" and key rotation wait for the mint to commit, and vice versa.
import { randomUUID } from "node:crypto";

import { issuedTokens, type App } from "@sluice/db";
import { SignJWT } from "jose";

import type { Actor } from "../../auth/actor";
import { recordChange } from "../../outbox/record-change";
import { tokenSettings } from "../../config";
import type { Tx } from "../../db";
import { AppError } from "../../errors";
import { buildClaims, issuedAtSeconds, type TokenPermissions } from "../../tokens/claims";
import { decryptSigningKey, loadActiveSigningKey } from "../signing-keys/load-active-signer";

export async function issueToken(
  tx: Tx,
  options: { actor: Actor; app: App; permissions: TokenPermissions; lifetimeSeconds: number; description: string; encryptionKey?: Buffer },
) {
  const { actor, app, permissions } = options;
  const key = await loadActiveSigningKey(tx);
  if (!key)
    throw new AppError("unavailable", 503, "There is no active signing key; an admin can create one under Settings → Signing keys.");
  const privateKey = await decryptSigningKey(key, options.encryptionKey);

  const nowMs = Date.now();
  const jti = randomUUID();
  const claims = buildClaims({
    ...tokenSettings(),
    appId: app.id,
    jti,
    iat: issuedAtSeconds(nowMs, app.tokensNotBefore),
    lifetimeSeconds: options.lifetimeSeconds,
    permissions,
  });
  const token = await new SignJWT(claims).setProtectedHeader({ alg: key.algorithm, kid: key.kid, typ: "JWT" }).sign(privateKey);
  const [row] = await tx
    .insert(issuedTokens)
    .values({
      jti,
      appId: app.id,
      kid: key.kid,
      permissions,
      description: options.description,
      issuedBy: actor.userId || null,
      issuedAt: new Date(nowMs),
      expiresAt: new Date(claims.exp * 1000),
    })
    .returning();
  await recordChange(tx, actor, { action: "token.mint", entityType: "token", entityId: jti, after: { ...row, appName: app.name } });
  return { token, tokenInfo: row! };
}
