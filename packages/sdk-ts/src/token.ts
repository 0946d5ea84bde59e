/**
 * Reading a JWT's claims without verifying it: the SDK only needs `exp` to know
 * when to ask getToken for a fresh token. The gateway verifies; the client never
 * trusts these claims for anything else.
 */

/** tokenExpiry returns the token's `exp` in ms since the epoch, or undefined if it has none or is not a JWT. */
export function tokenExpiry(token: string): number | undefined {
  const parts = token.split(".");
  if (parts.length !== 3 || parts[1] === undefined) return undefined;
  try {
    const b64 = parts[1].replace(/-/g, "+").replace(/_/g, "/");
    const binary = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    const claims: unknown = JSON.parse(new TextDecoder().decode(bytes));
    if (typeof claims === "object" && claims !== null && "exp" in claims && typeof claims.exp === "number") {
      return claims.exp * 1000;
    }
  } catch {
    // Not a JWT we can read: treat it as having no known expiry.
  }
  return undefined;
}
