// Personal API keys for the management API. A key acts with its owner's role.
// The full key is returned once; only its SHA-256 and prefix are stored.
import { apiKeys } from "@sluice/db";

import type { Actor } from "../../auth/actor";
import { randomToken, sha256 } from "../../auth/secrets";
import { recordChange } from "../../outbox/record-change";
import type { Database } from "../../db";
import { forbidden } from "../../errors";
import type { CreateApiKeyInput } from "../../validation/api-keys";

export const API_KEY_PREFIX = "slk_";

export async function createApiKey(options: { db: Database; actor: Actor; input: CreateApiKeyInput }) {
  // A key cannot mint keys: otherwise a leaked key could outlive its own revocation.
  if (options.actor.via.kind !== "session") throw forbidden("Create personal API keys in the portal, signed in.");
  const { input } = options;
  const secret = randomToken();
  const key = `${API_KEY_PREFIX}${secret}`;
  return options.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(apiKeys)
      .values({
        userId: options.actor.userId,
        name: input.name,
        prefix: key.slice(0, API_KEY_PREFIX.length + 6),
        secretHash: sha256(key),
        expiresAt: input.expiresInDays ? new Date(Date.now() + input.expiresInDays * 86400_000) : null,
      })
      .returning();
    const { secretHash: _hidden, ...visible } = row!;
    await recordChange(tx, options.actor, { action: "api_key.create", entityType: "api_key", entityId: row!.id, after: visible });
    return { apiKey: visible, key };
  });
}
