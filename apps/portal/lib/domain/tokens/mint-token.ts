// Mints a token for an app: every requested entry must be covered by the app's
// grants, the lifetime is bounded by SLUICE_TOKEN_MAX_LIFETIME_SECONDS, the
// claims are PROTOCOL.md's and the signature is made with the active key,
// decrypted in memory only. The token is returned once; only its metadata is
// stored, and the audit entry never contains it.
import { randomUUID } from "node:crypto";

import { appGrants, issuedTokens } from "@sluice/db";
import { eq } from "drizzle-orm";
import { SignJWT } from "jose";

import type { Actor } from "../../auth/actor";
import { recordChange } from "../../changes/record-change";
import { tokenSettings } from "../../config";
import type { Database } from "../../db";
import { AppError, invalid } from "../../errors";
import { formatRelativeSeconds } from "../../format";
import { buildClaims, issuedAtSeconds, permissionsWithinGrants } from "../../tokens/claims";
import { parseInput } from "../../validation/parse";
import { mintTokenInput } from "../../validation/tokens";
import { loadApp } from "../apps/load-app";
import { ensureSigningKey } from "../signing-keys/ensure-signing-key";
import { decryptSigningKey, loadActiveSigningKey } from "../signing-keys/load-active-signer";

export async function mintToken(options: { db: Database; actor: Actor; appId: string; input: unknown; encryptionKey?: Buffer }) {
  const input = parseInput(mintTokenInput, options.input);
  const settings = tokenSettings();
  if (input.lifetimeSeconds > settings.maxLifetimeSeconds) {
    throw invalid("lifetimeSeconds", `must be at most ${settings.maxLifetimeSeconds} seconds (${formatRelativeSeconds(settings.maxLifetimeSeconds)})`);
  }
  // Visibility first: someone else's app is 404 whatever the request holds.
  await loadApp({ db: options.db, actor: options.actor, appId: options.appId });
  await ensureSigningKey({ db: options.db, encryptionKey: options.encryptionKey });

  return options.db.transaction(async (tx) => {
    // Shared locks: "revoke all" and rotation wait for this mint to commit, and vice versa.
    const app = await loadApp({ db: tx, actor: options.actor, appId: options.appId, lock: "share" });
    const grants = await tx.select().from(appGrants).where(eq(appGrants.appId, app.id));
    const permissions = permissionsWithinGrants(input.permissions, grants);
    const key = await loadActiveSigningKey(tx);
    if (!key) throw new AppError("unavailable", 503, "There is no active signing key; an admin can create one under Settings → Signing keys.");
    const privateKey = await decryptSigningKey(key, options.encryptionKey);

    const nowMs = Date.now();
    const jti = randomUUID();
    const claims = buildClaims({
      ...settings,
      appId: app.id,
      jti,
      iat: issuedAtSeconds(nowMs, app.tokensNotBefore),
      lifetimeSeconds: input.lifetimeSeconds,
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
        description: input.description,
        issuedBy: options.actor.userId || null,
        issuedAt: new Date(nowMs),
        expiresAt: new Date(claims.exp * 1000),
      })
      .returning();
    await recordChange(tx, options.actor, { action: "token.mint", entityType: "token", entityId: jti, after: { ...row, appName: app.name } });
    return { token, tokenInfo: row! };
  });
}
