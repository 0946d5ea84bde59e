import assert from "node:assert/strict";
import { type IncomingMessage, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { OAuthTokenError, createOAuthBearerProvider, refusedSetting } from "./oauth.ts";

const SECRET = "top secret:&+/é";
const CLIENT_ID = "sluice gateway";

interface Seen {
  method?: string;
  authorization?: string;
  contentType?: string;
  body: URLSearchParams;
}
const seen: Seen[] = [];
/** What the next answers are: status and JSON body, in order; the last one repeats. */
let answers: Array<{ status: number; body: unknown }> = [];
let issued = 0;

const server = createServer(async (req: IncomingMessage, res) => {
  let raw = "";
  for await (const chunk of req) raw += chunk;
  seen.push({
    method: req.method,
    authorization: req.headers.authorization,
    contentType: req.headers["content-type"],
    body: new URLSearchParams(raw),
  });
  const answer = answers.length > 1 ? answers.shift()! : answers[0]!;
  const body = typeof answer.body === "function" ? (answer.body as () => unknown)() : answer.body;
  issued++;
  res.writeHead(answer.status, { "content-type": "application/json" }).end(JSON.stringify(body));
});
let url = "";
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth2/token`;
});
after(() => server.close());

const reset = (next: Array<{ status: number; body: unknown }>) => {
  seen.length = 0;
  answers = next;
  issued = 0;
};
const token = (expiresIn?: number) => () => ({
  access_token: `tok-${issued}`,
  token_type: "bearer",
  ...(expiresIn ? { expires_in: expiresIn } : {}),
});

test("client-credentials request: POST form, scope, HTTP Basic with form-encoded id and secret", async () => {
  reset([{ status: 200, body: token(3600) }]);
  const provider = createOAuthBearerProvider({
    tokenEndpointUrl: url,
    clientId: CLIENT_ID,
    clientSecret: SECRET,
    scope: "kafka:read kafka:write",
  });
  assert.deepEqual(await provider(), { value: "tok-0" });
  assert.equal(seen.length, 1);
  const [req] = seen;
  assert.equal(req!.method, "POST");
  assert.equal(req!.contentType, "application/x-www-form-urlencoded");
  assert.equal(req!.body.get("grant_type"), "client_credentials");
  assert.equal(req!.body.get("scope"), "kafka:read kafka:write");
  const basic = Buffer.from(req!.authorization!.replace(/^Basic /, ""), "base64").toString("utf8");
  const [id, secret] = basic.split(":");
  assert.equal(id, "sluice+gateway");
  assert.equal(decodeURIComponent(secret!.replace(/\+/g, " ")), SECRET);
  assert.equal(decodeURIComponent(id!.replace(/\+/g, " ")), CLIENT_ID);
});

test("no scope: the form has none", async () => {
  reset([{ status: 200, body: token(3600) }]);
  await createOAuthBearerProvider({ tokenEndpointUrl: url, clientId: CLIENT_ID, clientSecret: SECRET })();
  assert.equal(seen[0]!.body.has("scope"), false);
});

test("the token is cached and refreshed at 80 % of its life; concurrent calls share one request", async () => {
  reset([{ status: 200, body: token(100) }]);
  let clock = 1_000_000;
  const provider = createOAuthBearerProvider({ tokenEndpointUrl: url, clientId: CLIENT_ID, clientSecret: SECRET }, { now: () => clock });
  const [a, b] = await Promise.all([provider(), provider()]);
  assert.equal(a.value, "tok-0");
  assert.equal(b.value, "tok-0");
  assert.equal(seen.length, 1);
  clock += 79_000;
  assert.equal((await provider()).value, "tok-0");
  assert.equal(seen.length, 1, "still within 80 % of 100 s");
  clock += 1_000;
  assert.equal((await provider()).value, "tok-1");
  assert.equal(seen.length, 2, "refreshed at 80 s");
});

test("refused credentials name the client secret variable, the client id and the status, never the secret", async () => {
  reset([{ status: 401, body: { error: "invalid_client", error_description: `bad secret ${SECRET}` } }]);
  const provider = createOAuthBearerProvider({ tokenEndpointUrl: url, clientId: CLIENT_ID, clientSecret: SECRET });
  await assert.rejects(provider(), (err: unknown) => {
    assert.ok(err instanceof OAuthTokenError);
    assert.equal(err.variable, "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET");
    assert.equal(err.status, 401);
    assert.match(err.message, /^KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET: /);
    assert.match(err.message, /HTTP 401 \(invalid_client\)/);
    assert.ok(err.message.includes(CLIENT_ID));
    assert.ok(!err.message.includes(SECRET), err.message);
    return true;
  });
});

test("refusedSetting: credentials, scope, else the endpoint", () => {
  assert.equal(refusedSetting(401), "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET");
  assert.equal(refusedSetting(400, "invalid_client"), "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET");
  assert.equal(refusedSetting(400, "invalid_scope"), "KAFKA_SASL_OAUTHBEARER_SCOPE");
  assert.equal(refusedSetting(404), "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL");
  assert.equal(refusedSetting(503), "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL");
});

test("a failure is not cached: the next call asks again", async () => {
  reset([
    { status: 503, body: {} },
    { status: 200, body: token(60) },
  ]);
  const provider = createOAuthBearerProvider({ tokenEndpointUrl: url, clientId: CLIENT_ID, clientSecret: SECRET });
  await assert.rejects(provider(), /HTTP 503/);
  assert.equal((await provider()).value, "tok-1");
});

test("an answer without access_token, and an unreachable endpoint, are errors naming the variable", async () => {
  reset([{ status: 200, body: { token_type: "bearer" } }]);
  await assert.rejects(
    createOAuthBearerProvider({ tokenEndpointUrl: url, clientId: CLIENT_ID, clientSecret: SECRET })(),
    /KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL: .*without an access_token/,
  );
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  await assert.rejects(
    createOAuthBearerProvider({ tokenEndpointUrl: `http://127.0.0.1:${port}/token`, clientId: CLIENT_ID, clientSecret: SECRET })(),
    (err: Error) => {
      assert.match(err.message, /^KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL: token request .* failed: ECONNREFUSED/);
      assert.ok(!err.message.includes(SECRET));
      return true;
    },
  );
});
