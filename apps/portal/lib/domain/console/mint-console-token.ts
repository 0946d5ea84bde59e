// "Try it" on an endpoint page: a short-lived token for the signed-in user that
// names exactly that endpoint. Anyone who can read the catalog may subscribe
// from the console; publishing writes real records to Kafka, so the token only
// carries publish for editors and admins (and only where the endpoint allows it).
// The token is issued for the console app (no grants), recorded and audited like
// every other token, and revocable from that app's page.
import { apps } from "@sluice/db";
import { eq } from "drizzle-orm";

import { hasRole, type AuthorizedActor } from "../../auth/actor";
import { gatewayServers } from "../../asyncapi/build-document";
import { gatewayPublicUrl, tokenSettings } from "../../config";
import type { Database } from "../../db";
import { forbidden } from "../../errors";
import { parsePattern } from "../../permissions/match";
import type { TokenPermissions } from "../../tokens/claims";
import { getEndpoint } from "../endpoints/get-endpoint";
import { ensureSigningKey } from "../signing-keys/ensure-signing-key";
import { issueToken } from "../tokens/issue-token";
import { ensureConsoleApp } from "./ensure-console-app";

/** Ten minutes; the console asks for a fresh one (SDK getToken) before it expires. */
export const CONSOLE_TOKEN_LIFETIME_SECONDS = 600;

export async function mintConsoleToken(options: {
  db: Database;
  actor: AuthorizedActor;
  apiId: string;
  endpointId: string;
  encryptionKey?: Buffer;
}) {
  const endpoint = await getEndpoint({ db: options.db, actor: options.actor, apiId: options.apiId, endpointId: options.endpointId });
  const canSubscribe = endpoint.operations.includes("subscribe");
  const canPublish = endpoint.operations.includes("publish") && hasRole(options.actor, "editor");
  if (!canSubscribe && !canPublish) {
    throw forbidden("This endpoint only allows publishing, and publishing from the live console needs the editor role.");
  }
  // A parameterised endpoint (/prices/{symbol}) serves every key of its topic.
  const pattern = parsePattern(endpoint.keyParam ? `/${endpoint.topic}/*` : endpoint.path);
  if (!pattern.ok) throw new Error(`The endpoint ${endpoint.path} has no valid path: ${pattern.reason}`);
  const scope = pattern.value.canonical;
  const permissions: TokenPermissions = { sub: [], pub: [], all: [] };
  if (canSubscribe && canPublish) permissions.all.push(scope);
  else if (canSubscribe) permissions.sub.push(scope);
  else permissions.pub.push(scope);

  const { app, created } = await ensureConsoleApp({ db: options.db });
  await ensureSigningKey({ db: options.db, encryptionKey: options.encryptionKey });
  const lifetimeSeconds = Math.min(CONSOLE_TOKEN_LIFETIME_SECONDS, tokenSettings().maxLifetimeSeconds);
  const { token, tokenInfo } = await options.db.transaction(async (tx) => {
    const [locked] = await tx.select().from(apps).where(eq(apps.id, app.id)).for("share");
    return issueToken(tx, {
      actor: options.actor,
      app: locked ?? app,
      permissions,
      lifetimeSeconds,
      description: `Live console: ${endpoint.path} (${options.actor.email})`,
      encryptionKey: options.encryptionKey,
    });
  });
  return {
    token,
    jti: tokenInfo.jti,
    expiresAt: tokenInfo.expiresAt,
    gatewayUrl: gatewayServers(gatewayPublicUrl()).wsUrl,
    permissions,
    canSubscribe,
    canPublish,
    // A console app made just now may not have reached the gateways yet: the
    // console retries a refused first connection for a few seconds.
    appJustCreated: created,
  };
}
