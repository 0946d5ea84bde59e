// The whole path with real components: an endpoint and a token made through the
// management API reach the gateway through the outbox, the bridge and the
// catalog topic; the token works there, records flow, and revoking the token in
// the portal closes the live connection with 4009.
import assert from "node:assert/strict";
import { after, test } from "node:test";

import { Kafka, logLevel } from "kafkajs";
import WebSocket from "ws";

import { createTopic } from "./catalog-helpers";
import { eventually } from "./eventually";
import { seedUser } from "./helpers";

const gatewayUrl = process.env.SLUICE_GATEWAY_URL ?? "http://127.0.0.1:8080";
const wsUrl = `${gatewayUrl.replace(/^http/, "ws")}/ws`;
const kafka = new Kafka({
  clientId: "sluice-live-path-test",
  brokers: (process.env.KAFKA_BROKERS || "127.0.0.1:9092").split(","),
  logLevel: logLevel.NOTHING,
});
const producer = kafka.producer();
after(() => producer.disconnect());

type Frame = Record<string, unknown> & { type: string };

/** A protocol client that keeps every frame it receives, for assertions in order. */
class GatewayClient {
  readonly frames: Frame[] = [];
  closeCode: number | undefined;
  private waiters: (() => void)[] = [];
  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data) => {
      this.frames.push(JSON.parse(String(data)));
      this.wake();
    });
    ws.on("close", (code) => {
      this.closeCode = code;
      this.wake();
    });
  }
  static async open(): Promise<GatewayClient> {
    const ws = new WebSocket(wsUrl, "sluice.v1");
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
    return new GatewayClient(ws);
  }
  private wake() {
    for (const w of this.waiters.splice(0)) w();
  }
  send(frame: Frame) {
    this.ws.send(JSON.stringify(frame));
  }
  /** The first frame (after `from`) matching `match`, waiting up to `ms`. */
  async next(match: (f: Frame) => boolean, ms = 10_000, from = 0): Promise<Frame> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.frames.slice(from).find(match);
      if (found) return found;
      if (this.closeCode !== undefined)
        throw new Error(`connection closed (${this.closeCode}) while waiting; frames: ${JSON.stringify(this.frames)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching frame within ${ms} ms; frames: ${JSON.stringify(this.frames)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
  /** Sends a frame with an id and waits for the answer to it. */
  async request(frame: Frame): Promise<Frame> {
    const id = String(this.frames.length + Math.random());
    const from = this.frames.length;
    this.send({ ...frame, id });
    return this.next((f) => f.id === id, 10_000, from);
  }
  close() {
    this.ws.close();
  }
}

test("an endpoint and a token made in the portal work on the gateway, and revoking the token closes the connection", async () => {
  const { api } = await seedUser("editor", "live");
  const topic = await createTopic("live", 2);

  const { data: created } = await api.POST("/apis", { body: { name: `Live ${topic}`, version: "1.0.0" } });
  const { data: endpoint, error: endpointError } = await api.POST("/apis/{apiId}/endpoints", {
    params: { path: { apiId: created!.id } },
    body: { path: `/${topic}/{symbol}`, operations: ["subscribe", "publish"], payloadFormat: "json" },
  });
  assert.ok(endpoint, JSON.stringify(endpointError));
  const { data: app } = await api.POST("/apps", { body: { name: `live ${topic}` } });
  await api.POST("/apps/{appId}/grants", {
    params: { path: { appId: app!.id } },
    body: { endpointPattern: `/${topic}/*`, operations: ["subscribe", "publish"] },
  });
  const { data: minted, error: mintError } = await api.POST("/apps/{appId}/tokens", {
    params: { path: { appId: app!.id } },
    body: { permissions: { all: [`/${topic}/*`] }, lifetimeSeconds: 600 },
  });
  assert.ok(minted, JSON.stringify(mintError));

  // Authenticate and subscribe as soon as the gateway has the key, the app and the endpoint.
  const client = await eventually("the gateway accepts the portal's token", async () => {
    const c = await GatewayClient.open();
    const answer = await c.request({ type: "auth", token: minted.token });
    if (answer.type !== "authenticated") {
      c.close();
      throw new Error(JSON.stringify(answer));
    }
    return c;
  });
  assert.equal((await client.frames.find((f) => f.type === "authenticated"))?.app, app!.id);
  await eventually("the gateway serves the new endpoint", async () => {
    const answer = await client.request({ type: "subscribe", endpoint: `/${topic}/AAPL` });
    if (answer.type !== "subscribed") throw new Error(JSON.stringify(answer));
  });

  // A record produced to Kafka reaches the subscriber.
  await producer.connect();
  await producer.send({ topic, messages: [{ key: "AAPL", value: JSON.stringify({ price: 187.25 }) }] });
  const message = await client.next((f) => f.type === "message");
  assert.equal(message.endpoint, `/${topic}/AAPL`);
  assert.deepEqual(message.data, { price: 187.25 });

  // Publishing through the gateway is acknowledged with a Kafka position.
  const published = await client.request({ type: "publish", endpoint: `/${topic}/MSFT`, data: { price: 411.2 } });
  assert.equal(published.type, "published", JSON.stringify(published));
  assert.equal(typeof published.seq, "number");

  // Revoking the token in the portal ends the live connection with 4009.
  const revoked = await api.DELETE("/apps/{appId}/tokens/{jti}", { params: { path: { appId: app!.id, jti: minted.tokenInfo.jti } } });
  assert.ok(revoked.response.ok, `revoke answered ${revoked.response.status}`);
  const closing = await client.next((f) => f.type === "closing");
  assert.equal(closing.code, 4009);
  await eventually("the socket closes", async () => assert.equal(client.closeCode, 4009), 5_000);
});
