// Admins see and rotate the token signing keys. The public JWKS is served at
// /.well-known/jwks.json (app/.well-known/jwks.json/route.ts).
import { z } from "zod";

import { listSigningKeys } from "../../domain/signing-keys/list-signing-keys";
import { rotateSigningKey } from "../../domain/signing-keys/rotate-signing-key";
import { defineRoute } from "../route";
import { nullableTimestamp, timestamp } from "../schemas";

const signingKey = z
  .object({
    kid: z.string(),
    algorithm: z.string(),
    publicJwk: z.record(z.string(), z.unknown()),
    status: z.enum(["active", "retired"]),
    state: z.enum(["active", "retired", "expired"]).describe("expired: retired and no unexpired token left, so out of the JWKS"),
    createdAt: timestamp,
    retiredAt: nullableTimestamp,
    unexpiredTokens: z.number().int(),
    lastTokenExpiresAt: nullableTimestamp,
  })
  .meta({ id: "SigningKey" });

export const signingKeyRoutes = [
  defineRoute({
    method: "GET",
    path: "/signing-keys",
    operationId: "listSigningKeys",
    summary: "List signing keys",
    tag: "Signing keys",
    auth: "admin",
    response: z.object({ items: z.array(signingKey) }),
    handler: async ({ db }) => ({ items: await listSigningKeys({ db }) }),
  }),
  defineRoute({
    method: "POST",
    path: "/signing-keys/rotate",
    operationId: "rotateSigningKey",
    summary: "Rotate the signing key",
    description:
      "A new ES256 key signs new tokens; the old key is retired and stays in the JWKS until the last token it signed has expired.",
    tag: "Signing keys",
    auth: "admin",
    status: 201,
    response: z.object({
      active: z.object({ kid: z.string(), createdAt: timestamp }),
      retired: z.object({ kid: z.string(), retiredAt: nullableTimestamp }).nullable(),
      expired: z.array(z.string()).describe("Retired keys tombstoned now"),
    }),
    handler: async ({ db, actor }) => {
      const { active, retired, expired } = await rotateSigningKey({ db, actor });
      return {
        active: { kid: active.kid, createdAt: active.createdAt },
        retired: retired && { kid: retired.kid, retiredAt: retired.retiredAt },
        expired,
      };
    },
  }),
];
