import { accountLinks, type AccountLink } from "@sluice/db";

import { randomToken, sha256 } from "../../auth/secrets";
import { portalPublicUrl, secretKey } from "../../config";
import { seal } from "../../crypto/secret-box";
import type { Tx } from "../../db";

export const ACCOUNT_LINK_LIFETIME_SECONDS: Record<AccountLink["purpose"], number> = {
  first_admin: 24 * 3600,
  invite: 7 * 24 * 3600,
  password_reset: 3600,
};

/**
 * A one-time link; the returned URL holds the only readable copy of its token.
 * `sealed` (the first admin's link only) also keeps the token encrypted under
 * SLUICE_SECRET_KEY, so that any portal replica can print the link again.
 */
export async function createAccountLink(options: {
  tx: Tx;
  purpose: AccountLink["purpose"];
  userId: string | null;
  createdBy: string | null;
  sealed?: boolean;
}): Promise<{ url: string; expiresAt: Date }> {
  const token = randomToken();
  const tokenHash = sha256(token);
  const expiresAt = new Date(Date.now() + ACCOUNT_LINK_LIFETIME_SECONDS[options.purpose] * 1000);
  await options.tx.insert(accountLinks).values({
    tokenHash,
    purpose: options.purpose,
    userId: options.userId,
    createdBy: options.createdBy || null,
    expiresAt,
    tokenCiphertext: options.sealed ? seal(token, sealContext(tokenHash), secretKey()) : null,
  });
  return { url: accountLinkUrl(token), expiresAt };
}

export const accountLinkUrl = (token: string) => `${portalPublicUrl()}/setup/${token}`;

/** Binds a sealed token to its row: a ciphertext copied onto another row does not open. */
export const sealContext = (tokenHash: string) => `account_links.token_ciphertext:${tokenHash}`;
