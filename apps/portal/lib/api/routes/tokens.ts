// Tokens of an app: mint (shown once), list, revoke one, revoke all. The app's
// owner, editors and admins; anyone else gets 404 for the app.
import { z } from "zod";

import { listTokens } from "../../domain/tokens/list-tokens";
import { mintToken } from "../../domain/tokens/mint-token";
import { revokeAllTokens } from "../../domain/tokens/revoke-all-tokens";
import { revokeToken } from "../../domain/tokens/revoke-token";
import { mintTokenInput } from "../../validation/tokens";
import { pageQuery, pageSchema } from "../../pagination";
import { defineRoute } from "../route";
import { nullableTimestamp, timestamp } from "../schemas";

const appId = z.object({ appId: z.uuid("must be a UUID") });
const tokenPath = z.object({ appId: z.uuid("must be a UUID"), jti: z.uuid("must be a UUID") });

const permissions = z
  .object({ sub: z.array(z.string()), pub: z.array(z.string()), all: z.array(z.string()) })
  .meta({ id: "TokenPermissions" });

const tokenInfo = z
  .object({
    jti: z.uuid(),
    appId: z.uuid(),
    kid: z.string().describe("The signing key's id (JWT header kid)"),
    permissions,
    description: z.string(),
    issuedBy: z.uuid().nullable(),
    issuedAt: timestamp,
    expiresAt: timestamp,
    revokedAt: nullableTimestamp,
    status: z.enum(["active", "expired", "revoked"]),
  })
  .meta({ id: "TokenInfo" });

export const tokenRoutes = [
  defineRoute({
    method: "GET",
    path: "/apps/{appId}/tokens",
    operationId: "listTokens",
    summary: "List an app's tokens (metadata, newest first)",
    tag: "Tokens",
    auth: "viewer",
    params: appId,
    query: pageQuery,
    response: pageSchema(tokenInfo),
    handler: async ({ db, actor, params, query }) =>
      listTokens({ db, actor, appId: params.appId, limit: query.limit, cursor: query.cursor }),
  }),
  defineRoute({
    method: "POST",
    path: "/apps/{appId}/tokens",
    operationId: "mintToken",
    summary: "Mint a token for an app",
    description:
      "Each entry of permissions.sub / pub / all must be covered by one of the app's grants (sub needs subscribe, pub publish, all both). The token (a JWT signed ES256 with the active key) is returned once and never stored.",
    tag: "Tokens",
    auth: "viewer",
    params: appId,
    body: mintTokenInput,
    status: 201,
    response: z.object({ token: z.string().describe("The JWT; shown once"), tokenInfo }),
    handler: async ({ db, actor, params, body }) => {
      const { token, tokenInfo: row } = await mintToken({ db, actor, appId: params.appId, input: body });
      return { token, tokenInfo: { ...row, status: "active" as const } };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/apps/{appId}/tokens/revoke-all",
    operationId: "revokeAllTokens",
    summary: "Revoke every token of an app",
    description: "Tokens issued before the returned tokensNotBefore are rejected by every gateway; tokens minted afterwards work.",
    tag: "Tokens",
    auth: "viewer",
    params: appId,
    response: z.object({ tokensNotBefore: timestamp, revoked: z.number().int().describe("Live tokens marked revoked") }),
    handler: async ({ db, actor, params }) => revokeAllTokens({ db, actor, appId: params.appId }),
  }),
  defineRoute({
    method: "DELETE",
    path: "/apps/{appId}/tokens/{jti}",
    operationId: "revokeToken",
    summary: "Revoke one token",
    tag: "Tokens",
    auth: "viewer",
    params: tokenPath,
    response: null,
    handler: async ({ db, actor, params }) => {
      await revokeToken({ db, actor, appId: params.appId, jti: params.jti });
    },
  }),
];
