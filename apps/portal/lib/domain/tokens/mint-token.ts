// Mints a token for an app: every requested entry must be covered by the app's
// grants, the lifetime is bounded by SLUICE_TOKEN_MAX_LIFETIME_SECONDS, the
// claims are PROTOCOL.md's and the signature is made with the active key,
// decrypted in memory only. The token is returned once; only its metadata is
// stored, and the audit entry never contains it.
import { appGrants } from "@sluice/db";
import { eq } from "drizzle-orm";

import type { Actor } from "../../auth/actor";
import { tokenSettings } from "../../config";
import type { Database } from "../../db";
import { conflict, invalid } from "../../errors";
import { formatRelativeSeconds } from "../../format";
import { permissionsWithinGrants } from "../../tokens/claims";
import type { MintTokenInput } from "../../validation/tokens";
import { loadApp } from "../apps/load-app";
import { ensureSigningKey } from "../signing-keys/ensure-signing-key";
import { issueToken } from "./issue-token";

export async function mintToken(options: { db: Database; actor: Actor; appId: string; input: MintTokenInput; encryptionKey?: Buffer }) {
  const { input } = options;
  const settings = tokenSettings();
  if (input.lifetimeSeconds > settings.maxLifetimeSeconds) {
    throw invalid(
      "lifetimeSeconds",
      `must be at most ${settings.maxLifetimeSeconds} seconds (${formatRelativeSeconds(settings.maxLifetimeSeconds)})`,
    );
  }
  // Visibility first: someone else's app is 404 whatever the request holds.
  await loadApp({ db: options.db, actor: options.actor, appId: options.appId });
  await ensureSigningKey({ db: options.db, encryptionKey: options.encryptionKey });

  return options.db.transaction(async (tx) => {
    // Shared locks: "revoke all" and rotation wait for this mint to commit, and vice versa.
    const app = await loadApp({ db: tx, actor: options.actor, appId: options.appId, lock: "share" });
    if (app.kind === "console") throw conflict("appId", "the live console's app gets its tokens from the live console only");
    const grants = await tx.select().from(appGrants).where(eq(appGrants.appId, app.id));
    const permissions = permissionsWithinGrants(input.permissions, grants);
    return issueToken(tx, {
      actor: options.actor,
      app,
      permissions,
      lifetimeSeconds: input.lifetimeSeconds,
      description: input.description,
      encryptionKey: options.encryptionKey,
    });
  });
}
