// The client against the in-process fake server: reconnect, resume, dedupe,
// backoff, refresh, revocation, typed errors, publish. No timing is asserted:
// tests wait for conditions, and backoff/refresh are driven by injected
// random and clock.
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { WebSocket } from "ws";

import {
  AuthError,
  Codes,
  connect,
  ConnectionClosedError,
  DisconnectedError,
  NotFoundError,
  PermissionError,
  RevokedError,
  ServerError,
  type SluiceError,
  ValidationError,
  type ConnectOptions,
  type ConnectionState,
  type Message,
  type SluiceClient,
  type WebSocketConstructor,
} from "../src/index.js";
import { shuffled } from "../src/client.js";
import { FakeClock, FakeServer, fakeToken, waitFor, type FakeServerOptions } from "./fake-server.js";

const WS = WebSocket as unknown as WebSocketConstructor;
const hourFromNow = () => Math.floor(Date.now() / 1000) + 3600;

let server: FakeServer | undefined;
let client: SluiceClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = server = undefined;
});

async function setup(serverOpts: FakeServerOptions = {}, opts: Partial<ConnectOptions> = {}) {
  server = await FakeServer.start(serverOpts);
  client = await connect(server.url, {
    token: fakeToken(hourFromNow()),
    WebSocket: WS,
    backoff: { initialDelayMs: 5, maxDelayMs: 20 },
    pingIntervalMs: 0,
    ...opts,
  });
  return { server, client };
}

function collect<T>(sub: { on(e: "message", fn: (m: Message<T>) => void): unknown }): Message<T>[] {
  const got: Message<T>[] = [];
  sub.on("message", (m) => got.push(m));
  return got;
}

describe("connecting", () => {
  it("speaks sluice.v1, authenticates with an auth frame and reports its states", async () => {
    server = await FakeServer.start();
    const token = fakeToken(hourFromNow());
    const states: ConnectionState[] = [];
    const pending = connect(server.url, { token, WebSocket: WS, pingIntervalMs: 0 });
    const conn = await server.connection(0);
    assert.equal(conn.protocol, "sluice.v1");
    const auth = await conn.nextFrame();
    assert.deepEqual({ type: auth.type, token: auth.token }, { type: "auth", token });
    client = await pending;
    client.on("state", ({ state }) => states.push(state));
    assert.equal(client.state, "connected");
    await client.close();
    assert.deepEqual(states, ["closed"]);
  });

  it("rejects connect with AuthError (code 4001) when the token is refused, and does not retry", async () => {
    server = await FakeServer.start({ autoAuth: false });
    const pending = connect(server.url, { token: "bad", WebSocket: WS, backoff: { initialDelayMs: 1 } });
    const conn = await server.connection(0);
    const auth = await conn.nextFrame("auth");
    conn.send({ type: "error", id: auth.id, code: 4001, message: "token: signature invalid" });
    await assert.rejects(pending, (err: unknown) => err instanceof AuthError && err.code === 4001 && err.name === "AuthError");
    assert.equal(server.connections.length, 1);
  });

  it("needs a WebSocket implementation where there is no global one (Node 20) and says how to pass one", async () => {
    const g = globalThis as { WebSocket?: unknown };
    const saved = g.WebSocket;
    g.WebSocket = undefined;
    try {
      await assert.rejects(connect("ws://127.0.0.1:1/ws", { token: "t" }), /pass one/);
    } finally {
      g.WebSocket = saved;
    }
  });
});

describe("subscribing", () => {
  it("delivers messages to a handler and to an async iterator, with positions", async () => {
    const { server, client } = await setup();
    const viaHandler: unknown[] = [];
    const a = client.subscribe("/prices/BRK%2eB", (m) => void viaHandler.push(m.data));
    assert.equal(a.endpoint, "/prices/BRK.B");
    await a.ready;
    const b = client.subscribe<{ n: number }>("/prices/AAPL");
    await b.ready;
    server.append("/prices/BRK.B", { n: 1 });
    server.append("/prices/AAPL", { n: 1 });
    server.append("/prices/AAPL", { n: 2 });
    const seen: number[] = [];
    for await (const m of b) {
      seen.push(m.data.n);
      assert.deepEqual(m.position, { epoch: "E1", partition: 0, seq: m.data.n - 1 });
      if (seen.length === 2) break; // break unsubscribes
    }
    assert.deepEqual(seen, [1, 2]);
    await waitFor(() => viaHandler.length === 1, "handler delivery");
    assert.equal(b.active, false);
    const conn = server.connections[0];
    await waitFor(() => !conn?.subscriptions.has("/prices/AAPL"), "unsubscribe reaching the server");
  });

  it("sends from (earliest, time, position) as given", async () => {
    const { server, client } = await setup();
    client.subscribe("/a/1", { from: "earliest" });
    client.subscribe("/a/2", { from: { time: 1795000000000 } });
    client.subscribe("/a/3", () => {}, { from: { epoch: "E1", partition: 2, seq: 41 } });
    const conn = await server.connection(0);
    const froms = [];
    for (let i = 0; i < 3; i++) froms.push((await conn.nextFrame("subscribe")).from);
    assert.deepEqual(froms, ["earliest", { time: 1795000000000 }, { epoch: "E1", partition: 2, seq: 41 }]);
  });

  it("decodes base64 data to bytes", async () => {
    const { server, client } = await setup();
    const sub = client.subscribe("/blobs/1");
    await sub.ready;
    const log = server.log("/blobs/1");
    log.records.push({ seq: 0, ts: 1, data: "AAEC", encoding: "base64" });
    server.deliver(server.connections[0]!, "/blobs/1", log, log.records[0]!);
    const it = sub[Symbol.asyncIterator]();
    const { value } = await it.next();
    assert.equal(value?.encoding, "base64");
    assert.deepEqual(value?.data, new Uint8Array([0, 1, 2]));
  });

  it("surfaces gap notices as gap events", async () => {
    const { server, client } = await setup();
    const sub = client.subscribe("/prices/MSFT", () => {});
    await sub.ready;
    const gaps: unknown[] = [];
    sub.on("gap", (g) => gaps.push(g));
    server.connections[0]!.send({
      type: "gap",
      endpoint: "/prices/MSFT",
      epoch: "E1",
      partition: 0,
      from_seq: 42,
      to_seq: 97,
      reason: "retention",
    });
    await waitFor(() => gaps.length === 1, "gap event");
    assert.deepEqual(gaps[0], { endpoint: "/prices/MSFT", epoch: "E1", partition: 0, fromSeq: 42, toSeq: 97, reason: "retention" });
  });
});

describe("reconnect and resume", () => {
  it("reconnects after the server drops the socket mid-stream and resumes after the last position, with no loss and no duplicate", async () => {
    // The server misbehaves on resume: it re-sends 3 records the client already has.
    const { server, client } = await setup({ resumeOverlap: 3 });
    const sub = client.subscribe<number>("/ticks/x", { from: "earliest" });
    const got = collect(sub);
    for (let i = 0; i < 10; i++) server.append("/ticks/x", i);
    await waitFor(() => got.length === 10, "first 10");
    const states: ConnectionState[] = [];
    client.on("state", ({ state }) => states.push(state));

    server.connections[0]!.drop();
    for (let i = 10; i < 20; i++) server.append("/ticks/x", i); // produced while the client is away
    const conn = await server.connection(1);
    const resume = await conn.nextFrame("subscribe");
    assert.deepEqual(resume.from, { epoch: "E1", partition: 0, seq: 9 });
    for (let i = 20; i < 30; i++) server.append("/ticks/x", i);

    await waitFor(() => got.length >= 30, "all 30");
    assert.deepEqual(
      got.map((m) => m.data),
      Array.from({ length: 30 }, (_, i) => i),
    );
    assert.equal(sub.duplicatesDropped, 3);
    assert.deepEqual(states, ["disconnected", "connecting", "connected"]);
  });

  it("resumes every subscription; one that had no message yet resumes from its acknowledged start, so nothing produced while away is lost (latest included)", async () => {
    const { server, client } = await setup();
    for (let i = 0; i < 3; i++) server.append("/a/late", `old ${i}`); // seqs 0..2, before the subscription
    const early = client.subscribe<string>("/a/early", { from: "earliest" });
    const late = client.subscribe<string>("/a/late");
    const got: Message<string>[] = [];
    for (const s of [early, late]) s.on("message", (m) => got.push(m));
    const [earlyInfo, lateInfo] = await Promise.all([early.ready, late.ready]);
    assert.deepEqual(earlyInfo, { endpoint: "/a/early", epoch: "E1", partition: 0, seq: -1, resumed: false });
    assert.deepEqual(lateInfo, { endpoint: "/a/late", epoch: "E1", partition: 0, seq: 2, resumed: false });
    // Before any message, position is where delivery starts: usable in another process too.
    assert.deepEqual(late.position, { epoch: "E1", partition: 0, seq: 2 });
    server.connections[0]!.drop();
    // Produced while the client is away (synchronously: it cannot have reconnected yet).
    server.append("/a/early", "e0");
    server.append("/a/late", "l3");
    server.append("/a/late", "l4");
    const conn = await server.connection(1);
    const frames = [await conn.nextFrame("subscribe"), await conn.nextFrame("subscribe")];
    const byEndpoint = Object.fromEntries(frames.map((f) => [f.endpoint, f.from]));
    assert.deepEqual(byEndpoint["/a/early"], { epoch: "E1", partition: 0, seq: -1 });
    assert.deepEqual(byEndpoint["/a/late"], { epoch: "E1", partition: 0, seq: 2 });
    await waitFor(() => got.length === 3, "the three messages produced while away");
    assert.deepEqual(got.map((m) => m.data).sort(), ["e0", "l3", "l4"]);
    assert.deepEqual(late.position, { epoch: "E1", partition: 0, seq: 4 });
  });

  it("against a gateway that sends no subscribed.seq, one that had no message yet restarts where it asked (earliest) or at the time it subscribed (latest)", async () => {
    const { server, client } = await setup({ omitSubscribedSeq: true });
    const early = client.subscribe("/a/early", () => {}, { from: "earliest" });
    const late = client.subscribe("/a/late", () => {});
    await Promise.all([early.ready, late.ready]);
    assert.equal(late.position, undefined);
    server.connections[0]!.drop();
    const conn = await server.connection(1);
    const frames = [await conn.nextFrame("subscribe"), await conn.nextFrame("subscribe")];
    const byEndpoint = Object.fromEntries(frames.map((f) => [f.endpoint, f.from]));
    assert.equal(byEndpoint["/a/early"], "earliest");
    const t = (byEndpoint["/a/late"] as { time: number }).time;
    assert.ok(typeof t === "number" && t <= Date.now() && t > Date.now() - 60_000, `time ${t}`);
    const info = await new Promise((resolve) => late.once("subscribed", resolve));
    assert.deepEqual(info, { endpoint: "/a/late", epoch: "E1", partition: 0, seq: undefined, resumed: true });
  });

  it("a start acknowledged in a new epoch replaces the old epoch's position", async () => {
    const { server, client } = await setup();
    const sub = client.subscribe<string>("/t/k", { from: "earliest" });
    const got = collect(sub);
    server.append("/t/k", "a");
    await waitFor(() => got.length === 1, "old epoch");
    server.connections[0]!.drop();
    server.recreate("/t/k", "E2"); // empty: nothing delivered after the resume
    const conn = await server.connection(1);
    assert.deepEqual((await conn.nextFrame("subscribe")).from, { epoch: "E1", partition: 0, seq: 0 });
    await waitFor(() => sub.position?.epoch === "E2", "position in the new epoch");
    assert.deepEqual(sub.position, { epoch: "E2", partition: 0, seq: -1 });
    server.connections[1]!.drop();
    server.append("/t/k", "b"); // seq 0 of E2, produced while away
    const again = await server.connection(2);
    assert.deepEqual((await again.nextFrame("subscribe")).from, { epoch: "E2", partition: 0, seq: -1 });
    await waitFor(() => got.length === 2, "the new epoch's first message");
    assert.deepEqual(
      got.map((m) => [m.position.epoch, m.position.seq, m.data]),
      [
        ["E1", 0, "a"],
        ["E2", 0, "b"],
      ],
    );
  });

  it("reconnects and resumes after 1012 (node shutting down)", async () => {
    const { server, client } = await setup();
    const sub = client.subscribe<number>("/t/k", { from: "earliest" });
    const got = collect(sub);
    server.append("/t/k", 1);
    await waitFor(() => got.length === 1, "first");
    const reasons: number[] = [];
    client.on("disconnected", (d) => reasons.push(d.code));
    server.connections[0]!.close(1012, "node shutting down");
    const conn = await server.connection(1);
    assert.deepEqual((await conn.nextFrame("subscribe")).from, { epoch: "E1", partition: 0, seq: 0 });
    server.append("/t/k", 2);
    await waitFor(() => got.length === 2, "second");
    assert.deepEqual(reasons, [1012]);
  });

  it("follows a new epoch (topic recreated): seqs restart and are not taken for duplicates", async () => {
    const { server, client } = await setup();
    const sub = client.subscribe<string>("/t/k", { from: "earliest" });
    const got = collect(sub);
    const gaps: string[] = [];
    sub.on("gap", (g) => gaps.push(g.reason));
    server.append("/t/k", "a");
    server.append("/t/k", "b");
    await waitFor(() => got.length === 2, "old epoch");
    server.connections[0]!.drop();
    server.recreate("/t/k", "E2");
    server.append("/t/k", "c"); // seq 0 of E2, read on resume
    await waitFor(() => got.length === 3, "new epoch");
    assert.deepEqual(
      got.map((m) => [m.position.epoch, m.position.seq, m.data]),
      [
        ["E1", 0, "a"],
        ["E1", 1, "b"],
        ["E2", 0, "c"],
      ],
    );
    assert.deepEqual(gaps, ["epoch"]);
  });

  it("retries a node that refuses the token or the endpoint right after a restart (catalog not loaded yet)", async () => {
    server = await FakeServer.start({ autoAuth: false, autoSubscribe: false });
    const connecting = connect(server.url, {
      token: fakeToken(hourFromNow()),
      WebSocket: WS,
      backoff: { initialDelayMs: 5, maxDelayMs: 20 },
      pingIntervalMs: 0,
    });
    const first = await server.connection(0);
    const auth0 = await first.nextFrame("auth");
    first.send({ type: "authenticated", id: auth0.id, app: "app-1", expires_at: hourFromNow() });
    client = await connecting;
    const sub = client.subscribe<number>("/t/k", { from: "earliest" });
    const got = collect(sub);
    const s0 = await first.nextFrame("subscribe");
    first.send({ type: "subscribed", id: s0.id, endpoint: "/t/k", epoch: "E1", partition: 0 });
    first.send({ type: "message", endpoint: "/t/k", epoch: "E1", partition: 0, seq: 0, ts: 1, data: 0 });
    await waitFor(() => sub.position?.seq === 0, "first message");
    first.drop();

    // The restarted node does not know the signing key yet: 4001.
    const second = await server.connection(1);
    const auth1 = await second.nextFrame("auth");
    second.send({ type: "error", id: auth1.id, code: 4001, message: "token: unknown kid" });
    // Next attempt: authenticated, but the endpoint is not in its catalog yet: 4004.
    const third = await server.connection(2);
    const auth2 = await third.nextFrame("auth");
    third.send({ type: "authenticated", id: auth2.id, app: "app-1", expires_at: hourFromNow() });
    const s1 = await third.nextFrame("subscribe");
    third.send({ type: "error", id: s1.id, code: 4004, message: "no endpoint /t/k" });
    const s2 = await third.nextFrame("subscribe");
    assert.deepEqual(s2.from, { epoch: "E1", partition: 0, seq: 0 });
    third.send({ type: "subscribed", id: s2.id, endpoint: "/t/k", epoch: "E1", partition: 0 });
    third.send({ type: "message", endpoint: "/t/k", epoch: "E1", partition: 0, seq: 1, ts: 2, data: 1 });
    await waitFor(() => got.length === 2, "message after the retries");
    assert.deepEqual(
      got.map((m) => m.data),
      [0, 1],
    );
    assert.equal(sub.active, true);
    assert.equal(client.state, "connected");
  });

  it("waits with exponential backoff and full jitter between failed attempts", async () => {
    const draws = [0.5, 0.5, 0.5, 0.5, 0.25];
    const { server, client } = await setup({}, { backoff: { initialDelayMs: 8, maxDelayMs: 1_000, random: () => draws.shift() ?? 0 } });
    const delays: number[] = [];
    client.on("disconnected", (d) => delays.push(d.delayMs as number));
    server.refuseNext(3);
    server.connections[0]!.drop();
    await waitFor(() => client.state === "connected" && server.connections.length === 5, "reconnected after 3 refusals");
    // Caps 8, 16, 32, 64 with draws 0.5 → 4, 8, 16, 32: growing, and jittered (half the cap).
    assert.deepEqual(delays, [4, 8, 16, 32]);
    // A successful connection resets the backoff: the next drop starts from the first cap (8 * 0.25).
    server.connections[4]!.drop();
    await waitFor(() => delays.length === 5, "fifth drop");
    assert.equal(delays[4], 2);
  });
});

describe("server lists", () => {
  const servers: FakeServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  const cluster = async (n: number, opts: FakeServerOptions = {}) => {
    for (let i = 0; i < n; i++) servers.push(await FakeServer.start({ ...opts, peerOf: servers[0] }));
    return servers.map((s) => s.url);
  };

  // A random source just under 1 draws the last index at every step of the shuffle,
  // which keeps the list in the order given: the tests below can then say
  // which node comes next.
  const keepOrder = () => 0.999999;

  it("on every drop (a crash or 1012) moves to the next node of its order, wrapping around", async () => {
    const urls = await cluster(3);
    client = await connect(urls, {
      token: fakeToken(hourFromNow()),
      WebSocket: WS,
      backoff: { initialDelayMs: 5, maxDelayMs: 20 },
      pingIntervalMs: 0,
      random: keepOrder,
    });
    const connectedTo = [client.url];
    client.on("connected", (c) => connectedTo.push(c.url));
    const nextUrls: (string | undefined)[] = [];
    client.on("disconnected", (d) => nextUrls.push(d.nextUrl));
    assert.deepEqual(client.urls, urls);
    (await servers[0]!.connection(0)).drop();
    await waitFor(() => connectedTo.length === 2, "on the second node");
    (await servers[1]!.connection(0)).close(1012, "node shutting down");
    await waitFor(() => connectedTo.length === 3, "on the third node");
    (await servers[2]!.connection(0)).drop();
    await waitFor(() => connectedTo.length === 4, "wrapped around to the first node");
    assert.deepEqual(connectedTo, [urls[0], urls[1], urls[2], urls[0]]);
    assert.deepEqual(nextUrls, [urls[1], urls[2], urls[0]]);
    assert.deepEqual(
      servers.map((s) => s.connections.length),
      [2, 1, 1],
    );
  });

  it("puts the nodes in a random order of its own: starts spread over the list, and so do the moves away from a node", async () => {
    const urls = await cluster(3);
    const c = await connect(urls, { token: fakeToken(hourFromNow()), WebSocket: WS, pingIntervalMs: 0, random: () => 0 });
    // Fisher–Yates drawing 0 at each step: [a, b, c] → [c, b, a] → [b, c, a].
    assert.deepEqual(c.urls, [urls[1], urls[2], urls[0]]);
    assert.equal(c.url, urls[1]);
    await c.close();

    const firsts = new Map<string, number>();
    const afterA = new Map<string, number>(); // where the clients that start on "a" go next
    for (let i = 0; i < 3000; i++) {
      const order = shuffled(["a", "b", "c"], Math.random);
      assert.deepEqual([...order].sort(), ["a", "b", "c"]);
      firsts.set(order[0]!, (firsts.get(order[0]!) ?? 0) + 1);
      if (order[0] === "a") afterA.set(order[1]!, (afterA.get(order[1]!) ?? 0) + 1);
    }
    for (const node of ["a", "b", "c"]) assert.ok((firsts.get(node) ?? 0) > 800, `starts: ${[...firsts]}`);
    assert.ok((afterA.get("b") ?? 0) > 300 && (afterA.get("c") ?? 0) > 300, `after a: ${[...afterA]}`);
  });

  it("connect skips a node that is down and one that refuses the socket, and gives up only when every node failed once", async () => {
    const [, refusing, live] = await cluster(3);
    const dead = servers.shift()!;
    await dead.close(); // nothing listens there any more: connection refused
    const opts = { token: fakeToken(hourFromNow()), WebSocket: WS, backoff: { initialDelayMs: 5, maxDelayMs: 20 }, pingIntervalMs: 0 };
    servers[0]!.refuseNext(1);
    client = await connect([dead.url, refusing!, live!], { ...opts, random: keepOrder });
    assert.equal(client.url, live);
    assert.equal(servers[0]!.connections.length, 1);
    await client.close();

    servers[0]!.refuseNext(1);
    await assert.rejects(
      connect([dead.url, refusing!], { ...opts, random: keepOrder }),
      (err: unknown) =>
        err instanceof DisconnectedError && err.message.startsWith(`cannot connect to any of ${dead.url}, ${refusing} (last: ${refusing})`),
    );
    assert.equal(servers[0]!.connections.length, 2, "each node was tried once, none twice");
  });

  it("fails over to another node when its node dies and resumes every subscription there, with no loss and no duplicate", async () => {
    const urls = await cluster(2, { resumeOverlap: 2 });
    client = await connect(urls, {
      token: fakeToken(hourFromNow()),
      WebSocket: WS,
      backoff: { initialDelayMs: 5, maxDelayMs: 20 },
      pingIntervalMs: 0,
      random: keepOrder,
    });
    const a = client.subscribe<number>("/ticks/a", { from: "earliest" });
    const b = client.subscribe<number>("/ticks/b");
    const [gotA, gotB] = [collect(a), collect(b)];
    await Promise.all([a.ready, b.ready]);
    for (let i = 0; i < 10; i++) servers[0]!.append("/ticks/a", i);
    servers[0]!.append("/ticks/b", 0);
    await waitFor(() => gotA.length === 10 && gotB.length === 1, "the first records");

    const first = servers.shift()!;
    await first.close(); // the node is gone for good
    for (let i = 10; i < 20; i++) servers[0]!.append("/ticks/a", i); // written while the client moves
    servers[0]!.append("/ticks/b", 1);
    const conn = await servers[0]!.connection(0);
    const resumes = [await conn.nextFrame("subscribe"), await conn.nextFrame("subscribe")];
    assert.deepEqual(resumes.map((f) => [f.endpoint, f.from]).sort(), [
      ["/ticks/a", { epoch: "E1", partition: 0, seq: 9 }],
      ["/ticks/b", { epoch: "E1", partition: 0, seq: 0 }],
    ]);
    for (let i = 20; i < 25; i++) servers[0]!.append("/ticks/a", i);

    await waitFor(() => gotA.length >= 25 && gotB.length >= 2, "everything on the second node");
    assert.deepEqual(
      gotA.map((m) => m.data),
      Array.from({ length: 25 }, (_, i) => i),
    );
    assert.deepEqual(
      gotB.map((m) => m.data),
      [0, 1],
    );
    assert.equal(client.url, urls[1]);
    assert.equal(client.state, "connected");
  });
});

describe("token refresh", () => {
  it("asks getToken and sends refresh on the live connection before the token expires (injected clock)", async () => {
    server = await FakeServer.start();
    const clock = new FakeClock(Date.now());
    const nowS = () => Math.floor(clock.now() / 1000);
    const issued: string[] = [];
    const getToken = () => {
      const t = fakeToken(nowS() + 600, `t${issued.length}`);
      issued.push(t);
      return t;
    };
    const refreshed: number[] = [];
    client = await connect(server.url, { getToken, WebSocket: WS, clock, pingIntervalMs: 0, refreshMarginMs: 60_000 });
    client.on("refreshed", (r) => refreshed.push(r.expiresAt));
    const conn = server.connections[0]!;
    assert.equal((await conn.nextFrame("auth")).token, issued[0]);
    clock.advance(538_000); // 62 s before expiry: nothing yet
    assert.equal(issued.length, 1);
    assert.equal(conn.frames.filter((f) => f.type === "refresh").length, 0);
    clock.advance(3_000); // inside the 60 s margin
    const refresh = await conn.nextFrame("refresh");
    assert.equal(refresh.token, issued[1]);
    await waitFor(() => refreshed.length === 1, "refreshed event");
    assert.equal(server.connections.length, 1, "refresh reuses the connection");
  });

  it("after a 4008 close, reconnects with a token from getToken; without getToken it closes with AuthError", async () => {
    server = await FakeServer.start();
    let n = 0;
    client = await connect(server.url, {
      getToken: () => fakeToken(hourFromNow(), `g${++n}`),
      WebSocket: WS,
      pingIntervalMs: 0,
      backoff: { initialDelayMs: 1 },
    });
    server.connections[0]!.close(4008, "token expired");
    const conn = await server.connection(1);
    await conn.nextFrame("auth");
    assert.equal(n, 2);
    await waitFor(() => client?.state === "connected", "reconnected");

    const fixed = await connect(server.url, { token: fakeToken(hourFromNow()), WebSocket: WS, pingIntervalMs: 0 });
    const closed = new Promise<{ error?: SluiceError }>((resolve) => fixed.once("closed", resolve));
    server.connections[2]!.close(4008, "token expired");
    const { error } = await closed;
    assert.ok(error instanceof AuthError && error.code === 4008);
    assert.equal(fixed.state, "closed");
  });
});

describe("revocation", () => {
  it("on close 4009 surfaces RevokedError, ends subscriptions with it and does not reconnect", async () => {
    const { server, client } = await setup();
    const sub = client.subscribe("/t/k");
    await sub.ready;
    const closed = new Promise<{ error?: SluiceError }>((resolve) => client.once("closed", resolve));
    const ended = new Promise<{ error?: SluiceError }>((resolve) => sub.once("end", resolve));
    const willReconnect: boolean[] = [];
    client.on("disconnected", (d) => willReconnect.push(d.willReconnect));
    server.connections[0]!.close(4009, "token revoked");
    const { error } = await closed;
    assert.ok(error instanceof RevokedError, String(error));
    assert.equal(error.code, 4009);
    assert.ok((await ended).error instanceof RevokedError);
    assert.equal(client.state, "closed");
    assert.deepEqual(willReconnect, [false]);
    await assert.rejects(sub[Symbol.asyncIterator]().next(), RevokedError);
    assert.throws(() => client.subscribe("/t/other"), ConnectionClosedError);
    // Let a wrongly scheduled retry (5-20 ms backoff) happen if there were one.
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(server.connections.length, 1);
  });
});

describe("errors", () => {
  it("turns error frames into typed errors with the protocol code", async () => {
    const { server, client } = await setup({ autoSubscribe: false });
    const conn = server.connections[0]!;
    const cases: [string, number, new (...a: never[]) => SluiceError][] = [
      ["/t/forbidden", 4003, PermissionError],
      ["/t/missing", 4004, NotFoundError],
      ["/t/notallowed", 4005, PermissionError],
      // Kafka denies the gateway the topic: final (not retried like 5003).
      ["/t/acl-denied", 5030, PermissionError],
    ];
    for (const [endpoint, code, Type] of cases) {
      const sub = client.subscribe(endpoint);
      const f = await conn.nextFrame("subscribe");
      conn.send({ type: "error", id: f.id, code, message: `no: ${endpoint}` });
      await assert.rejects(
        sub.ready,
        (err: unknown) => err instanceof Type && (err as SluiceError).code === code && (err as SluiceError).endpoint === endpoint,
      );
      await assert.rejects(sub[Symbol.asyncIterator]().next(), Type);
      assert.equal(sub.active, false);
    }
    // The gateway ending a subscription on its own (endpoint removed).
    const sub = client.subscribe("/t/removed", () => {});
    const f = await conn.nextFrame("subscribe");
    conn.send({ type: "subscribed", id: f.id, endpoint: "/t/removed", epoch: "E", partition: 0 });
    await sub.ready;
    const ended = new Promise<{ error?: SluiceError }>((resolve) => sub.once("end", resolve));
    conn.send({ type: "unsubscribed", endpoint: "/t/removed", code: 4004, reason: "endpoint removed" });
    const { error } = await ended;
    assert.ok(error instanceof NotFoundError && error.code === 4004);
  });

  it("rejects a publish with ValidationError (4022) and reports errors without an id on the client", async () => {
    const { server, client } = await setup({ autoSubscribe: false });
    const conn = server.connections[0]!;
    const p = client.publish("/orders/eu", { qty: 0 });
    const f = await conn.nextFrame("publish");
    conn.send({ type: "error", id: f.id, code: 4022, message: "/qty: must be >= 1" });
    await assert.rejects(p, (err: unknown) => err instanceof ValidationError && err.code === 4022 && /qty/.test(err.message));
    const errors: SluiceError[] = [];
    client.on("error", (e) => errors.push(e));
    conn.send({ type: "error", code: 4000, message: "frame: not valid JSON" });
    await waitFor(() => errors.length === 1, "error event");
    assert.equal(errors[0]?.code, 4000);
  });
});

describe("publishing", () => {
  it("resolves with the Kafka position from the ack and sends bytes as base64", async () => {
    const { server, client } = await setup();
    const conn = server.connections[0]!;
    const p = client.publish("/orders/eu", { qty: 3 });
    const f = await conn.nextFrame("publish");
    assert.deepEqual({ endpoint: f.endpoint, data: f.data }, { endpoint: "/orders/eu", data: '{"qty":3}' });
    conn.send({ type: "published", id: f.id, endpoint: "/orders/eu", epoch: "E9", partition: 2, seq: 17 });
    assert.deepEqual(await p, { endpoint: "/orders/eu", epoch: "E9", partition: 2, seq: 17 });

    const q = client.publish("/blobs/1", new Uint8Array([0, 1, 2]));
    const g = await conn.nextFrame("publish");
    assert.deepEqual({ data: g.data, encoding: g.encoding }, { data: "AAEC", encoding: "base64" });
    conn.send({ type: "published", id: g.id, endpoint: "/blobs/1", epoch: "E9", partition: 0, seq: 1 });
    await q;
  });

  it("rejects a publish Kafka did not confirm (5004, may be written) with ServerError and does not re-send it", async () => {
    const { server, client } = await setup();
    const conn = server.connections[0]!;
    const p = client.publish("/orders/eu", { qty: 3 });
    const f = await conn.nextFrame("publish");
    conn.send({
      type: "error",
      id: f.id,
      code: 5004,
      message: "Kafka did not confirm the message within 10s: it may or may not be written",
    });
    await assert.rejects(p, (err: unknown) => err instanceof ServerError && err.code === Codes.PublishUnconfirmed);
    // The next frame the server sees is a new publish, not the old one again.
    const next = client.publish("/orders/eu", { qty: 4 });
    const g = await conn.nextFrame("publish");
    assert.equal(g.data, '{"qty":4}');
    conn.send({ type: "published", id: g.id, endpoint: "/orders/eu", epoch: "E9", partition: 2, seq: 18 });
    await next;
  });

  it("queues publishes while disconnected and sends them after reconnecting; a full queue refuses at once", async () => {
    const { server, client } = await setup(
      { refuseConnections: 0 },
      { maxQueuedPublishes: 2, backoff: { initialDelayMs: 200, maxDelayMs: 200, random: () => 0.99 } },
    );
    const disconnected = new Promise((resolve) => client.once("disconnected", resolve));
    server.connections[0]!.drop();
    await disconnected;
    assert.equal(client.state, "disconnected");
    const a = client.publish("/q/1", 1);
    const b = client.publish("/q/1", 2);
    await assert.rejects(client.publish("/q/1", 3), (err: unknown) => err instanceof DisconnectedError && err.code === 3);
    const conn = await server.connection(1);
    const fa = await conn.nextFrame("publish");
    const fb = await conn.nextFrame("publish");
    assert.deepEqual([fa.data, fb.data], ["1", "2"]);
    conn.send({ type: "published", id: fa.id, endpoint: "/q/1", epoch: "E", partition: 0, seq: 5 });
    conn.send({ type: "published", id: fb.id, endpoint: "/q/1", epoch: "E", partition: 0, seq: 6 });
    assert.equal((await a).seq, 5);
    assert.equal((await b).seq, 6);
  });

  it("rejects a publish in flight when the connection drops (outcome unknown) and does not re-send it", async () => {
    const { server, client } = await setup();
    const p = client.publish("/q/1", "x");
    await server.connections[0]!.nextFrame("publish");
    server.connections[0]!.drop();
    await assert.rejects(p, (err: unknown) => err instanceof DisconnectedError && /may or may not/.test(err.message));
    const conn = await server.connection(1);
    await waitFor(() => client.state === "connected", "reconnected");
    assert.equal(conn.frames.filter((f) => f.type === "publish").length, 0);
  });
});

describe("close", () => {
  it("is final: iterators finish, pending calls reject with ConnectionClosedError, no reconnect", async () => {
    const { server, client } = await setup({ autoSubscribe: false });
    const sub = client.subscribe("/t/k");
    const it = sub[Symbol.asyncIterator]();
    const next = it.next();
    const p = client.publish("/t/k", 1);
    await server.connections[0]!.nextFrame("publish");
    await client.close();
    assert.deepEqual(await next, { value: undefined, done: true });
    await assert.rejects(p, ConnectionClosedError);
    await assert.rejects(client.publish("/t/k", 2), ConnectionClosedError);
    assert.equal(client.state, "closed");
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(server.connections.length, 1);
  });
});
