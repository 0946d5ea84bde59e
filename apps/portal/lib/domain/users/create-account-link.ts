import { accountLinks, type AccountLink } from "@sluice/db";

import { randomToken, sha256 } from "../../auth/secrets";
import { portalPublicUrl } from "../../config";
import type { Tx } from "../../db";

export const ACCOUNT_LINK_LIFETIME_SECONDS: Record<AccountLink["purpose"], number> = {
  first_admin: 24 * 3600,
  invite: 7 * 24 * 3600,
  password_reset: 3600,
};

/** A one-time link; the returned URL holds the only copy of its token. */
export async function createAccountLink(options: {
  tx: Tx;
  purpose: AccountLink["purpose"];
  userId: string | null;
  createdBy: string | null;
}): Promise<{ url: string; expiresAt: Date }> {
  const token = randomToken();
  const expiresAt = new Date(Date.now() + ACCOUNT_LINK_LIFETIME_SECONDS[options.purpose] * 1000);
  await options.tx.insert(accountLinks).values({
    tokenHash: sha256(token),
    purpose: options.purpose,
    userId: options.userId,
    createdBy: options.createdBy || null,
    expiresAt,
  });
  return { url: `${portalPublicUrl()}/setup/${token}`, expiresAt };
}
