// The test profile's OAuth 2.0 issuer, for the local Kafka's OAUTHBEARER
// listener: an RSA signing key made here, its public half as a JWKS file that
// the broker validates tokens against (Kafka's own OAuthBearerValidatorCallbackHandler),
// and a token endpoint on 127.0.0.1 that hands out RS256 JWTs with the
// client-credentials grant, the way a managed cluster's identity provider does.
// Test-only: nothing of Sluice's runtime serves or trusts these tokens.
import { type KeyObject, createPrivateKey, generateKeyPairSync, randomBytes, sign, timingSafeEqual } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** The issuer and audience the broker expects in a token (fixed strings: the broker's config is written before the endpoint listens). */
export const OAUTH_ISSUER = "sluice-test-issuer";
export const OAUTH_AUDIENCE = "sluice-test-kafka";

/** The client whose tokens the broker accepts; its principal is User:<client id> (the token's sub). */
export const OAUTH_CLIENT = "sluice-oauth";
/** A client of the same issuer whose tokens are for another audience: the broker refuses them. */
export const OAUTH_FOREIGN_CLIENT = "sluice-oauth-other-cluster";

/** How long a token is valid, in seconds. */
const TOKEN_LIFE_S = 300;
const KEY_ID = "sluice-test-key-1";

export interface OAuthIssuerFiles {
  /** file: URL of the JWKS the broker reads (also listed in the JVM's allowed-URLs property). */
  jwksUrl: string;
  signingKeyFile: string;
  clientsFile: string;
}

export function oauthIssuerFiles(tlsDir: string): OAuthIssuerFiles {
  return {
    jwksUrl: pathToFileURL(path.join(tlsDir, "oauth-jwks.json")).href,
    signingKeyFile: path.join(tlsDir, "oauth-signing.key"),
    clientsFile: path.join(tlsDir, "oauth-clients.json"),
  };
}

/** Makes the signing key, the JWKS and the clients' secrets in tlsDir, once; returns client id → secret. */
export function prepareOAuthIssuer(tlsDir: string): Record<string, string> {
  const files = oauthIssuerFiles(tlsDir);
  if (!existsSync(files.clientsFile)) {
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    writeFileSync(files.signingKeyFile, privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 });
    const jwk = publicKey.export({ format: "jwk" });
    writeFileSync(new URL(files.jwksUrl), JSON.stringify({ keys: [{ ...jwk, kid: KEY_ID, alg: "RS256", use: "sig" }] }));
    const clients = Object.fromEntries([OAUTH_CLIENT, OAUTH_FOREIGN_CLIENT].map((id) => [id, randomBytes(18).toString("base64url")]));
    writeFileSync(files.clientsFile, JSON.stringify(clients), { mode: 0o600 });
  }
  return JSON.parse(readFileSync(files.clientsFile, "utf8"));
}

/** A compact RS256 JWS of claims. */
function signJwt(key: KeyObject, claims: Record<string, unknown>): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const input = `${part({ alg: "RS256", typ: "JWT", kid: KEY_ID })}.${part(claims)}`;
  return `${input}.${sign("sha256", Buffer.from(input), key).toString("base64url")}`;
}

const sameSecret = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** The client id and secret of a token request: HTTP Basic (form-url-encoded parts) or client_id/client_secret in the body. */
function credentials(req: http.IncomingMessage, form: URLSearchParams): { id?: string; secret?: string } {
  const basic = /^Basic\s+(.+)$/i.exec(req.headers.authorization ?? "");
  if (basic) {
    const decoded = Buffer.from(basic[1]!, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    const unform = (s: string) => decodeURIComponent(s.replace(/\+/g, " "));
    return colon < 0 ? {} : { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) };
  }
  return { id: form.get("client_id") ?? undefined, secret: form.get("client_secret") ?? undefined };
}

export interface OAuthIssuer {
  tokenEndpointUrl: string;
  close(): Promise<void>;
}

/**
 * Serves POST /token (grant_type=client_credentials) on host: a registered
 * client gets a JWT with iss, sub (its id), aud, iat, exp and the scope asked
 * for, if any; anything else gets the RFC 6749 error answer (invalid_client with 401,
 * unsupported_grant_type with 400).
 */
export async function startOAuthIssuer(tlsDir: string, host: string): Promise<OAuthIssuer> {
  const files = oauthIssuerFiles(tlsDir);
  const key = createPrivateKey(readFileSync(files.signingKeyFile));
  const clients: Record<string, string> = JSON.parse(readFileSync(files.clientsFile, "utf8"));
  const answer = (res: http.ServerResponse, status: number, body: object, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers });
    res.end(JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    if (req.method !== "POST" || new URL(req.url ?? "/", "http://x").pathname !== "/token") {
      answer(res, 404, { error: "not_found" });
      return;
    }
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
      if (body.length > 64 * 1024) req.destroy();
    });
    req.on("end", () => {
      const form = new URLSearchParams(body);
      if (form.get("grant_type") !== "client_credentials") {
        answer(res, 400, { error: "unsupported_grant_type" });
        return;
      }
      const { id, secret } = credentials(req, form);
      const known = id !== undefined ? clients[id] : undefined;
      if (!known || secret === undefined || !sameSecret(secret, known)) {
        answer(res, 401, { error: "invalid_client" }, { "www-authenticate": 'Basic realm="sluice-test"' });
        return;
      }
      const now = Math.floor(Date.now() / 1000);
      const scope = form.get("scope") ?? "";
      const token = signJwt(key, {
        iss: OAUTH_ISSUER,
        sub: id,
        aud: id === OAUTH_FOREIGN_CLIENT ? "another-cluster" : OAUTH_AUDIENCE,
        iat: now,
        exp: now + TOKEN_LIFE_S,
        // Kafka's validator refuses an empty scope claim, but takes none at all.
        ...(scope ? { scope } : {}),
      });
      answer(res, 200, { access_token: token, token_type: "Bearer", expires_in: TOKEN_LIFE_S, ...(scope ? { scope } : {}) });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host, port: 0 }, resolve);
  });
  // The stack's process ends when its services have stopped; the issuer must not hold it.
  server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    tokenEndpointUrl: `http://${host}:${port}/token`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
