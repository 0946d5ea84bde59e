// The OAUTHBEARER client-credentials flow: the token a managed cluster's SASL
// handshake wants, fetched from the cluster's token endpoint and reused until
// close to its expiry.

/** The parts of the settings the flow needs. */
export interface ClientCredentials {
  tokenEndpointUrl: string;
  clientId: string;
  clientSecret: string;
  scope?: string;
}

export interface TokenProviderOptions {
  /** The fetch to use; global fetch by default. */
  fetch?: typeof fetch;
  /** The clock, in ms; Date.now by default. */
  now?: () => number;
  /** How long one token request may take, in ms (default 10 s). */
  timeoutMs?: number;
}

/**
 * The setting a token endpoint's refusal points at (RFC 6749 §5.2): the
 * client's credentials for invalid_client or a 401, the scope for
 * invalid_scope, else the endpoint itself.
 */
export function refusedSetting(status: number, error?: string): string {
  if (error === "invalid_client" || error === "unauthorized_client" || status === 401) return "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET";
  if (error === "invalid_scope") return "KAFKA_SASL_OAUTHBEARER_SCOPE";
  return "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL";
}

/** OAuthTokenError is a failed token request, naming the setting to fix (by default the endpoint's). */
export class OAuthTokenError extends Error {
  override name = "OAuthTokenError";
  readonly status?: number;
  constructor(
    message: string,
    status?: number,
    readonly variable = "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL",
  ) {
    super(`${variable}: ${message}`);
    if (status !== undefined) this.status = status;
  }
}

/** Share of a token's life after which a new one is fetched. */
export const REFRESH_AT = 0.8;
/** The life assumed when the endpoint sends no expires_in. */
const DEFAULT_LIFE_S = 300;

/** RFC 6749 §2.3.1: client id and secret are form-url-encoded before HTTP Basic. */
const formEncode = (s: string) => encodeURIComponent(s).replace(/%20/g, "+");

/**
 * createOAuthBearerProvider returns kafkajs' `oauthBearerProvider`: each call
 * gives a valid token, fetched with the client-credentials grant (POST
 * grant_type=client_credentials and the scope, HTTP Basic client
 * authentication) and reused until 80 % of its life has passed. Concurrent
 * calls share one request. Errors name the setting to fix (refusedSetting),
 * the client id and the HTTP status, never the secret.
 */
export function createOAuthBearerProvider(
  credentials: ClientCredentials,
  options: TokenProviderOptions = {},
): () => Promise<{ value: string }> {
  const doFetch = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const { tokenEndpointUrl, clientId, clientSecret, scope } = credentials;
  const scrub = (s: string) => s.split(clientSecret).join("[redacted]");
  let cached: { value: string; refreshAt: number } | undefined;
  let inflight: Promise<{ value: string }> | undefined;

  const request = async (): Promise<{ value: string }> => {
    const body = new URLSearchParams({ grant_type: "client_credentials" });
    if (scope) body.set("scope", scope);
    const started = now();
    let response: Response;
    try {
      response = await doFetch(tokenEndpointUrl, {
        method: "POST",
        headers: {
          authorization: `Basic ${Buffer.from(`${formEncode(clientId)}:${formEncode(clientSecret)}`).toString("base64")}`,
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/json",
        },
        body: body.toString(),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      const detail =
        e.name === "TimeoutError" ? `no answer within ${timeoutMs / 1000} s` : (e.cause?.code ?? e.cause?.message ?? e.message);
      throw new OAuthTokenError(scrub(`token request to ${tokenEndpointUrl} for client ${clientId} failed: ${detail}`));
    }
    const text = await response.text().catch(() => "");
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // not JSON: reported below by status or missing token
    }
    if (!response.ok) {
      // The OAuth error code (invalid_client, invalid_scope, …) says what to fix; the body may say more but is not echoed.
      const error = typeof json.error === "string" && json.error.length < 100 ? json.error : undefined;
      const variable = refusedSetting(response.status, error);
      const hint = variable === "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET" ? "; check KAFKA_SASL_OAUTHBEARER_CLIENT_ID and the secret" : "";
      throw new OAuthTokenError(
        scrub(
          `token endpoint ${tokenEndpointUrl} refused client ${clientId} with HTTP ${response.status}${error ? ` (${error})` : ""}${hint}`,
        ),
        response.status,
        variable,
      );
    }
    const token = json.access_token;
    if (typeof token !== "string" || token === "") {
      throw new OAuthTokenError(
        `token endpoint ${tokenEndpointUrl} answered HTTP ${response.status} without an access_token`,
        response.status,
      );
    }
    const expiresIn = Number(json.expires_in);
    const lifeS = Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : DEFAULT_LIFE_S;
    cached = { value: token, refreshAt: started + lifeS * 1000 * REFRESH_AT };
    return { value: token };
  };

  return async () => {
    if (cached && now() < cached.refreshAt) return { value: cached.value };
    inflight ??= request().finally(() => {
      inflight = undefined;
    });
    return inflight;
  };
}
