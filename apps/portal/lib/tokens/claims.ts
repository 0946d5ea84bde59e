// The pure rules of minting: which requested permissions an app's grants cover,
// the claims of the token (PROTOCOL.md "Tokens and permissions"), and the second
// granularity of "revoke every token of this app" (the gateway compares whole
// seconds: a token is revoked when iat < tokens_not_before).
import { AppError, type FieldError } from "../errors";
import {
  covers,
  OPERATIONS_OF,
  parsePattern,
  type Op,
  type Pattern,
  type PermissionList,
  type PermissionsClaim,
} from "../permissions/match";

export interface GrantLike {
  endpointPattern: string;
  operations: string[];
}

export interface TokenPermissions {
  sub: string[];
  pub: string[];
  all: string[];
}

const LISTS: PermissionList[] = ["sub", "pub", "all"];

/**
 * Validates every requested entry and checks it against the grants: each entry
 * must be covered, for every operation its list needs, by a grant (an exact path
 * by an equal grant or a wildcard above it; a wildcard by an equal or broader
 * wildcard). Returns the canonical permissions, or throws one 422 naming every
 * bad entry (`permissions.sub.0`) and the grant it lacks.
 */
export function permissionsWithinGrants(requested: PermissionsClaim, grants: GrantLike[]): TokenPermissions {
  const parsedGrants = grants.flatMap((g) => {
    const p = parsePattern(g.endpointPattern);
    return p.ok ? [{ pattern: p.value, operations: g.operations }] : [];
  });
  const errors: FieldError[] = [];
  const out: TokenPermissions = { sub: [], pub: [], all: [] };
  for (const list of LISTS) {
    (requested[list] ?? []).forEach((entry, i) => {
      const field = `permissions.${list}.${i}`;
      const parsed = parsePattern(entry);
      if (!parsed.ok) {
        errors.push({ field, message: `${parsed.reason}` });
        return;
      }
      const missing = OPERATIONS_OF[list].filter(
        (op) => !parsedGrants.some((g) => g.operations.includes(op) && covers(g.pattern, parsed.value)),
      );
      if (missing.length) {
        errors.push({
          field,
          message: `the app has no grant to ${missing.join(" and ")} ${parsed.value.canonical}; ask an editor to add one`,
        });
        return;
      }
      out[list].push(parsed.value.canonical);
    });
  }
  if (errors.length) {
    throw new AppError(
      "validation_failed",
      422,
      `A token cannot grant more than its app's grants. ${errors.map((e) => `${e.field}: ${e.message}`).join("; ")}`,
      errors,
    );
  }
  return out;
}

/** Which of an app's grants a pattern can be chosen from, per operation (for the mint form). */
export function grantedOperations(grants: GrantLike[], pattern: Pattern): Op[] {
  return (["subscribe", "publish"] as const).filter((op) =>
    grants.some((g) => {
      const p = parsePattern(g.endpointPattern);
      return p.ok && g.operations.includes(op) && covers(p.value, pattern);
    }),
  );
}

/**
 * The token's iat: now in whole seconds, but never before the app's
 * tokens_not_before, so a token minted in the same second as "revoke all" (which
 * sets tokens_not_before to the next second) is still accepted.
 */
export function issuedAtSeconds(nowMs: number, tokensNotBefore: Date | null): number {
  const now = Math.floor(nowMs / 1000);
  const floor = tokensNotBefore ? Math.ceil(tokensNotBefore.getTime() / 1000) : 0;
  return Math.max(now, floor);
}

/**
 * tokens_not_before for "revoke every token": the next whole second, so every
 * token minted before or during the current second (iat ≤ now) has iat below it.
 * Never moves backwards.
 */
export function revokeAllNotBefore(nowMs: number, current: Date | null): Date {
  const next = (Math.floor(nowMs / 1000) + 1) * 1000;
  return new Date(Math.max(next, current?.getTime() ?? 0));
}

export interface ClaimsInput {
  issuer: string;
  audience: string;
  appId: string;
  jti: string;
  iat: number;
  lifetimeSeconds: number;
  permissions: TokenPermissions;
}

/** Exactly the claims of PROTOCOL.md, in its order. */
export function buildClaims(input: ClaimsInput) {
  return {
    iss: input.issuer,
    aud: input.audience,
    sub: input.appId,
    iat: input.iat,
    exp: input.iat + input.lifetimeSeconds,
    jti: input.jti,
    permissions: { sub: input.permissions.sub, pub: input.permissions.pub, all: input.permissions.all },
  };
}
