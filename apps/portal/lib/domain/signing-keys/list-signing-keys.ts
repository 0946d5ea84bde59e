// Signing keys with how many unexpired tokens each one signed: the admin page,
// the API and the JWKS all read this, so they agree on which keys still matter;
// and which keys matter is @sluice/db's signingKeyInCatalog, the rule the
// catalog (the bridge's republish, the key expiry) follows too.
import { issuedTokens, signingKeyInCatalog, signingKeys } from "@sluice/db";
import { and, desc, eq, gt, sql } from "drizzle-orm";

import type { DbOrTx } from "../../db";

export type SigningKeyState = "active" | "retired" | "expired";

export async function listSigningKeys(options: { db: DbOrTx; now?: Date }) {
  const now = options.now ?? new Date();
  const rows = await options.db
    .select({
      kid: signingKeys.kid,
      algorithm: signingKeys.algorithm,
      publicJwk: signingKeys.publicJwk,
      status: signingKeys.status,
      createdAt: signingKeys.createdAt,
      retiredAt: signingKeys.retiredAt,
      unexpiredTokens: sql<number>`count(${issuedTokens.jti})::int`,
      lastTokenExpiresAt: sql<string | null>`max(${issuedTokens.expiresAt})`,
      inCatalog: sql<boolean>`${signingKeyInCatalog(now)}`,
    })
    .from(signingKeys)
    .leftJoin(issuedTokens, and(eq(issuedTokens.kid, signingKeys.kid), gt(issuedTokens.expiresAt, now)))
    .groupBy(signingKeys.kid)
    .orderBy(desc(signingKeys.createdAt));
  return rows.map(({ inCatalog, ...r }) => ({
    ...r,
    lastTokenExpiresAt: r.lastTokenExpiresAt ? new Date(r.lastTokenExpiresAt) : null,
    // A retired key out of the catalog is out of the JWKS too (and tombstoned).
    state: (r.status === "active" ? "active" : inCatalog ? "retired" : "expired") as SigningKeyState,
  }));
}

/** The public keys gateways and clients may verify with: the active key and retired keys that still sign an unexpired token. */
export async function getJwks(options: { db: DbOrTx; now?: Date }) {
  const keys = await listSigningKeys(options);
  return {
    keys: keys
      .filter((k) => k.state !== "expired")
      .map((k) => ({ ...(k.publicJwk as Record<string, unknown>), kid: k.kid, alg: k.algorithm, use: "sig" })),
  };
}
