/**
 * An in-process, scriptable stand-in for the gateway (WebSocket only), for the
 * edge cases a real gateway will not produce on demand: a socket dropped
 * mid-stream, duplicates after a resume, revocation, error frames. It validates
 * every client frame with the same decoder the protocol vectors check.
 *
 * By default it answers auth (expires_at from the token's exp), subscribe,
 * unsubscribe and ping like the gateway, and serves subscriptions from a small
 * in-memory log per endpoint, so resumes can be checked for loss and duplicates.
 */
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";

import { ClientFrameError, decodeClientFrame, SUBPROTOCOL, type DecodedClientFrame, type From, type Position } from "../src/frames.js";
import { tokenExpiry } from "../src/token.js";

export interface FakeRecord {
  seq: number;
  ts: number;
  data: unknown;
  encoding?: "base64";
}

interface FakeLog {
  epoch: string;
  partition: number;
  records: FakeRecord[];
}

export interface FakeServerOptions {
  /** Answer auth frames. Default true. */
  autoAuth?: boolean;
  /** Answer subscribe/unsubscribe frames and deliver from the log. Default true. */
  autoSubscribe?: boolean;
  /** On a resume, also re-send this many records at or before the position (a misbehaving node). Default 0. */
  resumeOverlap?: number;
  /** Terminate this many new connections as soon as they open (a node refusing clients). Default 0. */
  refuseConnections?: number;
  /** The app id in authenticated frames. */
  app?: string;
  /** Leave `seq` out of subscribed frames, like gateways before it existed. Default false. */
  omitSubscribedSeq?: boolean;
  /**
   * Another node of the same cluster: both serve the same logs (one Kafka), and
   * a record appended on either reaches the live subscribers of both.
   */
  peerOf?: FakeServer;
}

export class FakeConnection {
  readonly frames: DecodedClientFrame[] = [];
  readonly subscriptions = new Set<string>();
  closed = false;
  private waiters: { type: string | undefined; resolve: (f: DecodedClientFrame) => void }[] = [];
  private seen = 0;

  constructor(
    readonly server: FakeServer,
    readonly socket: WebSocket,
    readonly protocol: string,
  ) {}

  /** send writes a server frame. */
  send(frame: Record<string, unknown>): void {
    if (!this.closed) this.socket.send(JSON.stringify(frame));
  }

  /** nextFrame resolves with the next client frame (of that type) not yet taken by nextFrame. */
  nextFrame(type?: string): Promise<DecodedClientFrame> {
    for (let i = this.seen; i < this.frames.length; i++) {
      const f = this.frames[i] as DecodedClientFrame;
      if (type === undefined || f.type === type) {
        this.seen = i + 1;
        return Promise.resolve(f);
      }
    }
    return new Promise((resolve) => this.waiters.push({ type, resolve }));
  }

  /** drop ends the TCP connection without a close frame, like a killed process. */
  drop(): void {
    this.closed = true;
    this.socket.terminate();
  }

  /** close sends a closing notice and a close frame with code, like the gateway. */
  close(code: number, reason: string): void {
    this.send({ type: "closing", code, reason });
    this.closed = true;
    this.socket.close(code, reason);
  }

  /** @internal */
  received(frame: DecodedClientFrame): void {
    this.frames.push(frame);
    const i = this.waiters.findIndex((w) => w.type === undefined || w.type === frame.type);
    if (i >= 0) {
      const [w] = this.waiters.splice(i, 1);
      this.seen = this.frames.length;
      w?.resolve(frame);
    }
  }
}

export class FakeServer {
  readonly connections: FakeConnection[] = [];
  readonly logs: Map<string, FakeLog>;
  readonly url: string;
  // Every node of this server's cluster, itself included (shared by all of them).
  private readonly cluster: FakeServer[];
  private connectionWaiters: { index: number; resolve: (c: FakeConnection) => void }[] = [];
  private refuse: number;

  private constructor(
    private readonly wss: WebSocketServer,
    readonly options: FakeServerOptions,
  ) {
    const { port } = wss.address() as AddressInfo;
    this.url = `ws://127.0.0.1:${port}/ws`;
    this.refuse = options.refuseConnections ?? 0;
    this.logs = options.peerOf?.logs ?? new Map();
    this.cluster = options.peerOf?.cluster ?? [];
    this.cluster.push(this);
    wss.on("connection", (socket, req) => this.accept(socket, req.headers["sec-websocket-protocol"] ?? ""));
  }

  static async start(options: FakeServerOptions = {}): Promise<FakeServer> {
    const wss = new WebSocketServer({
      host: "127.0.0.1",
      port: 0,
      path: "/ws",
      // The gateway refuses an upgrade without the subprotocol.
      handleProtocols: (protocols) => (protocols.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
    });
    await once(wss, "listening");
    return new FakeServer(wss, options);
  }

  /** Refuse (terminate) the next n connections. */
  refuseNext(n: number): void {
    this.refuse = n;
  }

  /** connection resolves with the index-th connection the server accepted (0-based). */
  connection(index: number): Promise<FakeConnection> {
    const c = this.connections[index];
    if (c) return Promise.resolve(c);
    return new Promise((resolve) => this.connectionWaiters.push({ index, resolve }));
  }

  /** log returns (creating) the log of an endpoint. */
  log(endpoint: string, epoch = "E1", partition = 0): FakeLog {
    let log = this.logs.get(endpoint);
    if (!log) {
      log = { epoch, partition, records: [] };
      this.logs.set(endpoint, log);
    }
    return log;
  }

  /** append adds a record to an endpoint's log and delivers it to live subscribers. */
  append(endpoint: string, data: unknown, ts = Date.now()): FakeRecord {
    const log = this.log(endpoint);
    const last = log.records[log.records.length - 1];
    const record: FakeRecord = { seq: last ? last.seq + 1 : 0, ts, data };
    log.records.push(record);
    for (const node of this.cluster) {
      for (const c of node.connections) {
        if (!c.closed && c.subscriptions.has(endpoint)) node.deliver(c, endpoint, log, record);
      }
    }
    return record;
  }

  /** recreate the endpoint's topic: a new epoch, seqs from 0. */
  recreate(endpoint: string, epoch: string): void {
    this.logs.set(endpoint, { epoch, partition: 0, records: [] });
  }

  deliver(c: FakeConnection, endpoint: string, log: FakeLog, r: FakeRecord): void {
    const frame: Record<string, unknown> = {
      type: "message",
      endpoint,
      epoch: log.epoch,
      partition: log.partition,
      seq: r.seq,
      ts: r.ts,
      data: r.data,
    };
    if (r.encoding) frame.encoding = r.encoding;
    c.send(frame);
  }

  async close(): Promise<void> {
    for (const c of this.connections) if (!c.closed) c.drop();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private accept(socket: WebSocket, protocol: string): void {
    const conn = new FakeConnection(this, socket, protocol);
    this.connections.push(conn);
    socket.on("close", () => (conn.closed = true));
    const index = this.connections.length - 1;
    this.connectionWaiters = this.connectionWaiters.filter((w) => {
      if (w.index !== index) return true;
      w.resolve(conn);
      return false;
    });
    if (this.refuse > 0) {
      this.refuse--;
      conn.drop();
      return;
    }
    socket.on("message", (data, isBinary) => {
      if (isBinary) return;
      let frame: DecodedClientFrame;
      try {
        frame = decodeClientFrame(data.toString());
      } catch (err) {
        if (err instanceof ClientFrameError) conn.send({ type: "error", id: err.id || undefined, code: err.code, message: err.message });
        return;
      }
      conn.received(frame);
      this.answer(conn, frame);
    });
  }

  private answer(c: FakeConnection, f: DecodedClientFrame): void {
    const o = this.options;
    switch (f.type) {
      case "ping":
        c.send({ type: "pong", id: f.id });
        return;
      case "auth":
      case "refresh":
        if (o.autoAuth === false) return;
        c.send({
          type: "authenticated",
          id: f.id,
          app: o.app ?? "app-1",
          expires_at: Math.floor((tokenExpiry(f.token as string) ?? Date.now() + 3_600_000) / 1000),
        });
        return;
      case "subscribe":
        if (o.autoSubscribe === false) return;
        this.subscribe(c, f);
        return;
      case "unsubscribe":
        if (o.autoSubscribe === false) return;
        if (!c.subscriptions.delete(f.endpoint as string)) {
          c.send({ type: "error", id: f.id, code: 4004, message: `not subscribed to ${f.endpoint}` });
          return;
        }
        c.send({ type: "unsubscribed", id: f.id, endpoint: f.endpoint });
        return;
    }
  }

  private subscribe(c: FakeConnection, f: DecodedClientFrame): void {
    const endpoint = f.endpoint as string;
    if (c.subscriptions.has(endpoint)) {
      c.send({ type: "error", id: f.id, code: 4090, message: `already subscribed to ${endpoint}` });
      return;
    }
    const log = this.log(endpoint);
    c.subscriptions.add(endpoint);
    const from = f.from as From;
    let replay: FakeRecord[] = [];
    let epochGap = false;
    // subscribed.seq as the gateway defines it: just before the first record it can deliver.
    let seq = log.records[log.records.length - 1]?.seq ?? -1;
    if (from === "earliest") {
      replay = log.records;
      seq = (log.records[0]?.seq ?? 0) - 1;
    } else if (typeof from === "object" && "time" in from) {
      replay = log.records.filter((r) => r.ts >= from.time);
      if (replay[0]) seq = replay[0].seq - 1;
    } else if (typeof from === "object") {
      const pos = from as Position;
      if (pos.epoch !== log.epoch || pos.partition !== log.partition) {
        epochGap = true;
        replay = log.records;
        seq = (log.records[0]?.seq ?? 0) - 1;
      } else {
        replay = log.records.filter((r) => r.seq > pos.seq - (this.options.resumeOverlap ?? 0));
        seq = pos.seq;
      }
    }
    const ack: Record<string, unknown> = { type: "subscribed", id: f.id, endpoint, epoch: log.epoch, partition: log.partition, seq };
    if (this.options.omitSubscribedSeq) delete ack.seq;
    c.send(ack);
    if (epochGap) c.send({ type: "gap", endpoint, epoch: log.epoch, partition: log.partition, from_seq: 0, to_seq: 0, reason: "epoch" });
    for (const r of replay) this.deliver(c, endpoint, log, r);
  }
}

/** waitFor polls until cond() is true; it fails the test after a generous deadline instead of hanging. */
export async function waitFor(cond: () => boolean, what = "condition", timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** fakeToken builds an unsigned JWT-shaped token with an exp (seconds); the fake server never verifies. */
export function fakeToken(expSeconds: number, jti = "t"): string {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
  return `${part({ alg: "ES256", kid: "k" })}.${part({ sub: "app-1", exp: expSeconds, jti })}.sig`;
}

/** A manual clock: timers fire only when advance() passes their time. */
export class FakeClock {
  private t: number;
  private seq = 0;
  private timers = new Map<number, { at: number; fn: () => void }>();

  constructor(start = 1_795_000_000_000) {
    this.t = start;
  }

  now = (): number => this.t;

  setTimeout = (fn: () => void, ms: number): unknown => {
    const id = ++this.seq;
    this.timers.set(id, { at: this.t + Math.max(0, ms), fn });
    return id;
  };

  clearTimeout = (handle: unknown): void => {
    this.timers.delete(handle as number);
  };

  /** advance moves time forward, firing due timers in order. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const e of this.timers) if (e[1].at <= end && (!next || e[1].at < next[1].at)) next = e;
      if (!next) break;
      this.timers.delete(next[0]);
      this.t = next[1].at;
      next[1].fn();
    }
    this.t = end;
  }

  get pendingTimers(): number {
    return this.timers.size;
  }
}
