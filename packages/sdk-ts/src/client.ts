/**
 * The connection: authenticate, keep subscriptions across reconnects, publish,
 * refresh the token. One WebSocket at a time; every socket event checks that it
 * comes from the current socket, so a late event of a dead one changes nothing.
 */
import { Backoff, type BackoffOptions } from "./backoff.js";
import { Codes, ConnectionClosedError, DisconnectedError, RevokedError, SluiceError, TimeoutError, errorFromCode } from "./errors.js";
import { Emitter } from "./events.js";
import {
  SUBPROTOCOL,
  bytesToBase64,
  decodeServerFrame,
  encodeClientFrame,
  type ClientFrame,
  type From,
  type Position,
  type ServerFrame,
} from "./frames.js";
import { parsePath } from "./paths.js";
import { Subscription, type MessageHandler, type SubscriptionHost } from "./subscription.js";
import { tokenExpiry } from "./token.js";

/** The part of the WebSocket API the client uses (browsers, Node 22+, the `ws` package). */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}
export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => WebSocketLike;

/** Time source; injectable so tests can drive token refresh without waiting. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};

export type ConnectionState = "connecting" | "connected" | "disconnected" | "closed";

export interface ConnectOptions {
  /** A token to authenticate with. Without getToken it cannot be refreshed: the connection ends when it expires. */
  token?: string;
  /** Called for a token on the first connect, before the current one expires, and after an expiry. */
  getToken?: () => string | Promise<string>;
  /** A WebSocket implementation; default globalThis.WebSocket (browsers, Node 22+). On Node 20 pass `ws`. */
  WebSocket?: WebSocketConstructor;
  /** Reconnect after a drop. Default true. */
  reconnect?: boolean;
  /** Reconnect delays (exponential, full jitter). Default 500 ms doubling up to 30 s. */
  backoff?: BackoffOptions;
  /** Refresh the token this long before it expires (at most half its remaining life). Default 60,000 ms. */
  refreshMarginMs?: number;
  /** How long to wait for an answer (auth, subscribe, unsubscribe, ping) and for a socket to open. Default 10,000 ms. */
  requestTimeoutMs?: number;
  /** How long a publish may wait, queued and in flight, for its acknowledgement. Default 30,000 ms. */
  publishTimeoutMs?: number;
  /** Publishes held while not connected; more are refused. 0 refuses every publish while not connected. Default 1,000. */
  maxQueuedPublishes?: number;
  /** Send a ping this often to find a dead connection that the OS has not noticed yet. 0 disables. Default 30,000 ms. */
  pingIntervalMs?: number;
  /**
   * Keep retrying when the very first connection fails instead of rejecting
   * connect(). Default false: connect() rejects once every gateway URL was
   * tried once and none let the client in.
   */
  waitOnFirstConnect?: boolean;
  /** A source of uniform numbers in [0, 1) that orders the gateway URLs. Default Math.random. @internal for tests */
  random?: () => number;
  /** @internal for tests */
  clock?: Clock;
}

/** The acknowledgement of a publish: where Kafka stored the record. */
export interface PublishAck extends Position {
  endpoint: string;
}

export interface PublishOptions {
  /** Send a string as base64-encoded bytes (a Uint8Array is always sent that way). */
  encoding?: "base64";
}

export interface SubscribeOptions {
  /** Where delivery starts. Default "latest". A Position resumes right after it. */
  from?: From;
}

export interface ClientEvents {
  /** Every state change. */
  state: { state: ConnectionState; previous: ConnectionState };
  /** Authenticated on a new connection (subscriptions are being restored). */
  connected: { app: string; expiresAt: number; reconnect: boolean; url: string };
  /** The connection dropped; when `willReconnect`, the next attempt goes to `nextUrl` after `delayMs`. */
  disconnected: { code: number; reason: string; willReconnect: boolean; delayMs?: number; nextUrl?: string };
  /** A token refresh succeeded. */
  refreshed: { expiresAt: number };
  /** Errors that belong to no pending call: refresh failures, handler exceptions, malformed server frames. */
  error: SluiceError;
  /** The client is closed for good; `error` says why when it was not close(). */
  closed: { error?: SluiceError };
}

interface Pending {
  kind: "auth" | "refresh" | "subscribe" | "unsubscribe" | "publish" | "ping";
  resolve: (frame: ServerFrame) => void;
  reject: (err: SluiceError) => void;
  timer?: unknown;
  sub?: Subscription<never>;
}

interface QueuedPublish {
  endpoint: string;
  data: unknown;
  encoding?: "base64";
  resolve: (ack: PublishAck) => void;
  reject: (err: SluiceError) => void;
  timer: unknown;
  id?: string;
}

// How many failed authentications in a row (with getToken) before giving up.
const MAX_AUTH_FAILURES = 3;
// How many times a resume refused with 4004 is retried before the subscription ends.
const MAX_RESUME_NOT_FOUND = 3;

/**
 * connect opens a client and resolves once it is authenticated. `urls` is one
 * gateway URL or a list of interchangeable gateway nodes: the client puts them
 * in a random order of its own, starts at the first (so many clients spread
 * over the nodes) and moves on to the next one, wrapping around, whenever a
 * connection drops or cannot be made. Because every client has its own order,
 * the clients of a node that stops spread over all the others instead of all
 * moving to the same one.
 */
export async function connect(urls: string | readonly string[], options: ConnectOptions): Promise<SluiceClient> {
  const client = new SluiceClient(urls, options);
  await client.opened;
  return client;
}

export class SluiceClient extends Emitter<ClientEvents> {
  /** Every gateway URL the client may use, in this client's rotation order (a random permutation of the list given). */
  readonly urls: readonly string[];
  /** Resolves on the first authentication; rejects if the client closes first. @internal */
  readonly opened: Promise<void>;

  private readonly opts: Required<Omit<ConnectOptions, "token" | "getToken" | "WebSocket" | "backoff" | "clock" | "random">>;
  private readonly getToken: (() => string | Promise<string>) | undefined;
  private readonly WS: WebSocketConstructor;
  private readonly clock: Clock;
  private readonly backoff: Backoff;

  private currentState: ConnectionState = "connecting";
  private token: string | undefined;
  private ws: WebSocketLike | undefined;
  private authenticated = false;
  private everConnected = false;
  private urlIndex: number;
  // Connections that failed before the first authentication: connect() gives up
  // (without waitOnFirstConnect) once every URL has had its chance.
  private firstConnectFailures = 0;
  private authFailures = 0;
  private closingFrame: { code: number; reason: string } | undefined;
  private fatal: SluiceError | undefined; // set when this socket's end must close the client
  private nextId = 0;
  private readonly pending = new Map<string, Pending>();
  private readonly subs = new Map<string, Subscription<never>>();
  private readonly queue: QueuedPublish[] = [];
  private timers: { connect?: unknown; retry?: unknown; refresh?: unknown; ping?: unknown } = {};
  private readonly subscribeRetries = new Set<unknown>();
  private resolveOpened!: () => void;
  private rejectOpened!: (err: SluiceError) => void;

  constructor(urls: string | readonly string[], options: ConnectOptions) {
    super();
    const list = typeof urls === "string" ? [urls] : [...urls];
    if (list.length === 0 || list.some((u) => typeof u !== "string" || u === "")) {
      throw new TypeError("connect: pass a gateway URL or a non-empty list of them");
    }
    this.urls = shuffled(list, options.random ?? Math.random);
    this.urlIndex = 0;
    if (!options.token && !options.getToken) throw new TypeError("connect: pass token or getToken");
    const WS = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!WS) {
      throw new TypeError(
        'connect: no global WebSocket (Node 20): pass one, e.g. connect(url, { WebSocket }) with `import { WebSocket } from "ws"`',
      );
    }
    this.WS = WS;
    this.token = options.token;
    this.getToken = options.getToken;
    this.clock = options.clock ?? systemClock;
    this.backoff = new Backoff(options.backoff);
    this.opts = {
      reconnect: options.reconnect ?? true,
      refreshMarginMs: options.refreshMarginMs ?? 60_000,
      requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
      publishTimeoutMs: options.publishTimeoutMs ?? 30_000,
      maxQueuedPublishes: options.maxQueuedPublishes ?? 1_000,
      pingIntervalMs: options.pingIntervalMs ?? 30_000,
      waitOnFirstConnect: options.waitOnFirstConnect ?? false,
    };
    this.opened = new Promise((resolve, reject) => {
      this.resolveOpened = resolve;
      this.rejectOpened = reject;
    });
    this.opened.catch(() => {});
    this.onListenerError = (err) => this.reportError(err);
    this.open();
  }

  /** The gateway URL in use (or tried next while disconnected). */
  get url(): string {
    return this.urls[this.urlIndex] as string;
  }

  /** The connection state. */
  get state(): ConnectionState {
    return this.currentState;
  }

  /**
   * subscribe starts a subscription. Pass a handler, or iterate the returned
   * object with `for await`. It is restored after every reconnect from the last
   * delivered message. Errors (no permission, no such endpoint) reject
   * `sub.ready`, end the subscription and are thrown by its iterator.
   */
  subscribe<T = unknown>(
    endpoint: string,
    handler?: MessageHandler<T> | SubscribeOptions,
    options: SubscribeOptions = {},
  ): Subscription<T> {
    if (typeof handler === "object") {
      options = handler;
      handler = undefined;
    }
    this.assertOpen();
    const canonical = parsePath(endpoint).canonical;
    if (this.subs.has(canonical)) {
      throw errorFromCode(Codes.AlreadySubscribed, `already subscribed to ${canonical}`, { endpoint: canonical });
    }
    const sub = new Subscription<T>(this.host, canonical, options.from ?? "latest", this.clock.now(), handler);
    this.subs.set(canonical, sub as unknown as Subscription<never>);
    if (this.authenticated) this.sendSubscribe(sub as unknown as Subscription<never>);
    return sub;
  }

  /**
   * publish writes one message to the endpoint and resolves with its Kafka
   * position once Kafka acknowledged it. While not connected it is queued (up to
   * maxQueuedPublishes) and sent after the next authentication. If the connection
   * drops after it was sent and before the acknowledgement, it rejects with
   * DisconnectedError: the outcome is unknown, and it is not re-sent (that could
   * write it twice).
   */
  publish(endpoint: string, data: unknown, options: PublishOptions = {}): Promise<PublishAck> {
    let canonical: string;
    try {
      this.assertOpen();
      canonical = parsePath(endpoint).canonical;
    } catch (err) {
      return Promise.reject(err);
    }
    let encoding = options.encoding;
    if (data instanceof Uint8Array) {
      data = bytesToBase64(data);
      encoding = "base64";
    } else if (encoding === "base64" && typeof data === "string") {
      data = bytesToBase64(new TextEncoder().encode(data));
    }
    if (data === undefined) return Promise.reject(new TypeError("publish: data is undefined (send null for a JSON null)"));
    return new Promise<PublishAck>((resolve, reject) => {
      const item: QueuedPublish = { endpoint: canonical, data, resolve, reject, timer: undefined };
      if (encoding) item.encoding = encoding;
      item.timer = this.clock.setTimeout(() => {
        this.dropQueued(item);
        if (item.id) this.pending.delete(item.id);
        reject(
          new TimeoutError(Codes.Timeout, `publish to ${canonical}: no acknowledgement within ${this.opts.publishTimeoutMs} ms`, {
            endpoint: canonical,
          }),
        );
      }, this.opts.publishTimeoutMs);
      if (this.authenticated) {
        this.sendPublish(item);
        return;
      }
      if (this.queue.length >= this.opts.maxQueuedPublishes) {
        this.clock.clearTimeout(item.timer);
        reject(
          new DisconnectedError(
            Codes.Disconnected,
            `publish to ${canonical}: not connected and ${this.queue.length} publishes already queued`,
            { endpoint: canonical },
          ),
        );
        return;
      }
      this.queue.push(item);
    });
  }

  /** close ends the client for good: subscriptions end, pending calls reject with ConnectionClosedError. */
  close(): Promise<void> {
    this.shutdown(undefined);
    return Promise.resolve();
  }

  // ---- connection lifecycle ------------------------------------------------

  private open(): void {
    this.setState("connecting");
    this.authenticated = false;
    this.closingFrame = undefined;
    this.fatal = undefined;
    let ws: WebSocketLike;
    try {
      ws = new this.WS(this.url, SUBPROTOCOL);
    } catch (err) {
      this.reportError(err);
      this.shutdown(
        new ConnectionClosedError(Codes.ConnectionClosed, `cannot open ${this.url}: ${(err as Error).message}`, { cause: err }),
      );
      return;
    }
    this.ws = ws;
    this.timers.connect = this.clock.setTimeout(() => {
      if (this.ws === ws && !this.authenticated) this.drop(ws, 1006, "connect timeout: no authentication in time");
    }, this.opts.requestTimeoutMs);
    ws.onopen = () => {
      if (this.ws === ws) void this.authenticate(ws);
    };
    ws.onmessage = (event) => {
      if (this.ws === ws) this.receive(ws, event.data);
    };
    ws.onerror = () => {
      // The close event follows and carries what there is to know.
    };
    ws.onclose = (event) => {
      if (this.ws === ws) this.drop(ws, event.code, event.reason);
    };
  }

  private async authenticate(ws: WebSocketLike): Promise<void> {
    let token: string;
    try {
      token = await this.freshToken();
    } catch (err) {
      this.reportError(err);
      if (this.ws === ws) this.drop(ws, 4001, "getToken failed");
      return;
    }
    if (this.ws !== ws) return;
    this.request(ws, { type: "auth", token }, "auth").then(
      (frame) => {
        if (frame.type !== "authenticated" || this.ws !== ws) return;
        this.onAuthenticated(ws, frame.app, frame.expires_at);
      },
      (err: SluiceError) => {
        if (this.ws !== ws) return;
        this.onAuthFailed(ws, err);
      },
    );
  }

  /** freshToken returns the current token unless it is close to expiry and getToken can do better. */
  private async freshToken(): Promise<string> {
    if (this.getToken) {
      const exp = this.token === undefined ? undefined : tokenExpiry(this.token);
      if (this.token === undefined || (exp !== undefined && exp - this.clock.now() < this.refreshDelayMargin(exp))) {
        this.token = await this.getToken();
      }
    }
    if (!this.token) throw new TypeError("getToken returned an empty token");
    return this.token;
  }

  private refreshDelayMargin(expMs: number): number {
    const remaining = expMs - this.clock.now();
    return Math.min(this.opts.refreshMarginMs, Math.max(remaining, 0) / 2);
  }

  private onAuthenticated(ws: WebSocketLike, app: string, expiresAt: number): void {
    this.clock.clearTimeout(this.timers.connect);
    this.authenticated = true;
    this.authFailures = 0;
    this.backoff.reset();
    const reconnect = this.everConnected;
    this.everConnected = true;
    this.setState("connected");
    // Subscriptions first, then publishes queued while away.
    for (const sub of this.subs.values()) this.sendSubscribe(sub);
    for (const item of this.queue.splice(0)) this.sendPublish(item);
    this.scheduleRefresh(ws, expiresAt * 1000);
    this.schedulePing(ws);
    this.emit("connected", { app, expiresAt, reconnect, url: this.url });
    this.resolveOpened();
  }

  private onAuthFailed(ws: WebSocketLike, err: SluiceError): void {
    if (err.code === Codes.Revoked) {
      this.fatal = new RevokedError(err.code, err.message, { cause: err });
    } else if (
      this.everConnected &&
      (err.code === Codes.Unauthenticated || (err.code === Codes.TokenExpired && this.getToken)) &&
      ++this.authFailures < MAX_AUTH_FAILURES
    ) {
      // The token worked before. A node that just started serves /ws before it
      // has read the catalog and refuses tokens whose key it does not know yet;
      // a signing key may be rotating. Retry with backoff (asking getToken again
      // if there is one); give up after a few failures in a row.
      if (this.getToken) this.token = undefined;
    } else {
      this.fatal = err;
    }
    this.drop(ws, err.code, err.message);
  }

  /** drop handles the end of a socket: decide between reconnecting and closing. */
  private drop(ws: WebSocketLike, code: number, reason: string): void {
    if (this.ws !== ws) return;
    this.ws = undefined;
    ws.onopen = ws.onmessage = ws.onclose = null;
    // Closing a socket that is still connecting makes some implementations (ws)
    // emit an error; without a listener Node would throw it.
    ws.onerror = () => {};
    try {
      ws.close(1000);
    } catch {
      // already closing
    }
    this.authenticated = false;
    this.clearConnectionTimers();
    if (this.closingFrame) ({ code, reason } = this.closingFrame);
    this.failInFlight(code, reason);
    for (const sub of this.subs.values()) sub.handleDisconnected();
    if (this.currentState === "closed") return;

    let fatal = this.fatal;
    if (!fatal && code === Codes.Revoked) fatal = new RevokedError(code, reason || "token revoked");
    if (!fatal && code === Codes.TokenExpired) {
      if (this.getToken) this.token = undefined;
      else fatal = errorFromCode(code, reason || "token expired", {});
    }
    if (!fatal && !this.opts.reconnect)
      fatal = new DisconnectedError(Codes.Disconnected, `connection closed (${code}${reason ? `: ${reason}` : ""})`);
    if (!fatal && !this.everConnected && !this.opts.waitOnFirstConnect && ++this.firstConnectFailures >= this.urls.length) {
      const tried = this.urls.length === 1 ? this.url : `any of ${this.urls.join(", ")} (last: ${this.url})`;
      fatal = new DisconnectedError(Codes.Disconnected, `cannot connect to ${tried} (${code}${reason ? `: ${reason}` : ""})`);
    }
    if (fatal) {
      this.emit("disconnected", { code, reason, willReconnect: false });
      this.shutdown(fatal);
      return;
    }
    // Whatever ended this connection (a node that died, refused, or is shutting
    // down with 1012) may well end the next attempt there too: try the next node.
    // Subscriptions resume from their positions wherever they land.
    this.urlIndex = (this.urlIndex + 1) % this.urls.length;
    const delayMs = this.backoff.next();
    this.setState("disconnected");
    this.emit("disconnected", { code, reason, willReconnect: true, delayMs, nextUrl: this.url });
    this.timers.retry = this.clock.setTimeout(() => {
      if (this.currentState === "disconnected") this.open();
    }, delayMs);
  }

  private shutdown(error: SluiceError | undefined): void {
    if (this.currentState === "closed") return;
    const ws = this.ws;
    this.ws = undefined;
    this.authenticated = false;
    this.clearConnectionTimers();
    this.clock.clearTimeout(this.timers.retry);
    if (ws) {
      ws.onopen = ws.onmessage = ws.onclose = null;
      // Closing a socket that is still connecting makes some implementations (ws)
      // emit an error; without a listener Node would throw it.
      ws.onerror = () => {};
      try {
        ws.close(1000, "client closed");
      } catch {
        // not open yet
      }
    }
    this.setState("closed");
    const closedErr = error ?? new ConnectionClosedError(Codes.ConnectionClosed, "the client was closed");
    for (const [id, p] of this.pending) {
      this.clock.clearTimeout(p.timer);
      this.pending.delete(id);
      if (p.kind === "unsubscribe") p.resolve({ type: "unsubscribed", endpoint: p.sub?.endpoint ?? "" });
      else p.reject(closedErr);
    }
    for (const item of this.queue.splice(0)) {
      this.clock.clearTimeout(item.timer);
      item.reject(closedErr);
    }
    for (const sub of this.subs.values()) sub.end(error);
    this.subs.clear();
    if (error) this.rejectOpened(error);
    else this.rejectOpened(closedErr);
    this.emit("closed", error ? { error } : {});
  }

  private failInFlight(code: number, reason: string): void {
    for (const [id, p] of this.pending) {
      this.clock.clearTimeout(p.timer);
      this.pending.delete(id);
      switch (p.kind) {
        case "unsubscribe":
          // A subscription cannot outlive its connection: the goal is reached.
          p.resolve({ type: "unsubscribed", endpoint: p.sub?.endpoint ?? "" });
          break;
        case "publish":
          p.reject(
            new DisconnectedError(
              Codes.Disconnected,
              `connection lost (${code}${reason ? `: ${reason}` : ""}) before the publish was acknowledged: it may or may not have been written`,
            ),
          );
          break;
        default:
          // auth/refresh/ping/subscribe answers: the next connection starts over.
          break;
      }
    }
  }

  private clearConnectionTimers(): void {
    this.clock.clearTimeout(this.timers.connect);
    this.clock.clearTimeout(this.timers.refresh);
    this.clock.clearTimeout(this.timers.ping);
    this.timers.connect = this.timers.refresh = this.timers.ping = undefined;
    for (const t of this.subscribeRetries) this.clock.clearTimeout(t);
    this.subscribeRetries.clear();
  }

  private setState(state: ConnectionState): void {
    const previous = this.currentState;
    if (previous === state) return;
    this.currentState = state;
    this.emit("state", { state, previous });
  }

  private assertOpen(): void {
    if (this.currentState === "closed") throw new ConnectionClosedError(Codes.ConnectionClosed, "the client is closed");
  }

  // ---- token refresh and keepalive -----------------------------------------

  private scheduleRefresh(ws: WebSocketLike, expiresAtMs: number): void {
    this.clock.clearTimeout(this.timers.refresh);
    if (!this.getToken) return; // a fixed token: the gateway closes with 4008 at expiry
    const delay = Math.max(0, expiresAtMs - this.clock.now() - this.refreshDelayMargin(expiresAtMs));
    this.timers.refresh = this.clock.setTimeout(() => void this.refresh(ws, expiresAtMs), delay);
  }

  private async refresh(ws: WebSocketLike, currentExpiry: number): Promise<void> {
    if (this.ws !== ws || !this.getToken) return;
    let token: string;
    try {
      token = await this.getToken();
    } catch (err) {
      this.reportError(err);
      this.retryRefresh(ws, currentExpiry);
      return;
    }
    if (this.ws !== ws) return;
    const exp = tokenExpiry(token);
    if (exp !== undefined && exp <= currentExpiry) {
      // getToken handed back the same (or an older) token: ask again later.
      this.retryRefresh(ws, currentExpiry);
      return;
    }
    this.token = token;
    try {
      const frame = await this.request(ws, { type: "refresh", token }, "refresh");
      if (frame.type === "authenticated" && this.ws === ws) {
        this.scheduleRefresh(ws, frame.expires_at * 1000);
        this.emit("refreshed", { expiresAt: frame.expires_at });
      }
    } catch (err) {
      if (this.ws !== ws) return;
      this.reportError(err);
      if ((err as SluiceError).code === Codes.Revoked) {
        this.fatal = new RevokedError(Codes.Revoked, (err as Error).message, { cause: err });
        this.drop(ws, Codes.Revoked, (err as Error).message);
        return;
      }
      this.retryRefresh(ws, currentExpiry);
    }
  }

  private retryRefresh(ws: WebSocketLike, currentExpiry: number): void {
    // Try again within what is left; if the token expires first, the gateway
    // closes with 4008 and the reconnect asks getToken again.
    const remaining = currentExpiry - this.clock.now();
    if (remaining <= 0) return;
    this.timers.refresh = this.clock.setTimeout(() => void this.refresh(ws, currentExpiry), Math.min(5_000, remaining / 2));
  }

  private schedulePing(ws: WebSocketLike): void {
    if (this.opts.pingIntervalMs <= 0) return;
    this.timers.ping = this.clock.setTimeout(() => {
      if (this.ws !== ws) return;
      this.request(ws, { type: "ping" }, "ping").then(
        () => this.schedulePing(ws),
        (err: SluiceError) => {
          if (err instanceof TimeoutError && this.ws === ws) this.drop(ws, 1006, "no pong: the connection is dead");
        },
      );
    }, this.opts.pingIntervalMs);
  }

  // ---- frames ---------------------------------------------------------------

  private request(
    ws: WebSocketLike,
    frame: ClientFrame,
    kind: Pending["kind"],
    sub?: Subscription<never>,
    timeoutMs = this.opts.requestTimeoutMs,
  ): Promise<ServerFrame> {
    const id = String(++this.nextId);
    return new Promise<ServerFrame>((resolve, reject) => {
      const p: Pending = { kind, resolve, reject };
      if (sub) p.sub = sub;
      if (timeoutMs > 0) {
        p.timer = this.clock.setTimeout(() => {
          if (this.pending.get(id) !== p) return;
          this.pending.delete(id);
          reject(new TimeoutError(Codes.Timeout, `${frame.type}: no answer within ${timeoutMs} ms`));
        }, timeoutMs);
      }
      this.pending.set(id, p);
      this.send(ws, { ...frame, id });
    });
  }

  private send(ws: WebSocketLike, frame: ClientFrame): void {
    try {
      ws.send(encodeClientFrame(frame));
    } catch (err) {
      // The socket is closing; its close event settles what was pending.
      this.reportError(err);
    }
  }

  private sendSubscribe(sub: Subscription<never>): void {
    const ws = this.ws;
    if (!ws || !this.authenticated) return;
    const from = sub.resumeFrom();
    sub.wasSent = true;
    const frame: ClientFrame =
      from === "latest" ? { type: "subscribe", endpoint: sub.endpoint } : { type: "subscribe", endpoint: sub.endpoint, from };
    this.request(ws, frame, "subscribe", sub).then(
      (answer) => {
        if (answer.type === "subscribed") {
          sub.notFoundRetries = 0;
          sub.handleSubscribed(answer.epoch, answer.partition, answer.seq);
        }
      },
      (err: SluiceError) => {
        if (this.ws !== ws || this.subs.get(sub.endpoint) !== sub) return;
        // A resume refused with 4004 may come from a node that has not read the
        // whole catalog yet (it serves /ws before it is ready): retry it a few
        // times before believing the endpoint is gone.
        const notFoundOnResume = err.code === Codes.NotFound && sub.acknowledgements > 0 && ++sub.notFoundRetries <= MAX_RESUME_NOT_FOUND;
        if (err.code === Codes.Internal || err.code === Codes.Unavailable || err instanceof TimeoutError || notFoundOnResume) {
          // Transient (Kafka unavailable): try again on this connection after a pause.
          const retry = this.clock.setTimeout(
            () => {
              this.subscribeRetries.delete(retry);
              if (this.ws === ws && this.subs.get(sub.endpoint) === sub && sub.active) this.sendSubscribe(sub);
            },
            Math.max(this.backoff.initialDelayMs, 100) * (notFoundOnResume ? 2 ** sub.notFoundRetries : 1),
          );
          this.subscribeRetries.add(retry);
          return;
        }
        this.subs.delete(sub.endpoint);
        sub.end(err);
      },
    );
  }

  private sendPublish(item: QueuedPublish): void {
    const ws = this.ws;
    if (!ws) return;
    const frame: ClientFrame = { type: "publish", endpoint: item.endpoint, data: item.data };
    if (item.encoding) frame.encoding = item.encoding;
    const id = String(++this.nextId);
    item.id = id;
    this.pending.set(id, {
      kind: "publish",
      resolve: (answer) => {
        this.clock.clearTimeout(item.timer);
        if (answer.type === "published") {
          item.resolve({ endpoint: answer.endpoint, epoch: answer.epoch, partition: answer.partition, seq: answer.seq });
        }
      },
      reject: (err) => {
        this.clock.clearTimeout(item.timer);
        item.reject(err);
      },
    });
    this.send(ws, { ...frame, id });
  }

  private dropQueued(item: QueuedPublish): void {
    const i = this.queue.indexOf(item);
    if (i >= 0) this.queue.splice(i, 1);
  }

  private receive(ws: WebSocketLike, raw: unknown): void {
    const text = typeof raw === "string" ? raw : decodeBinary(raw);
    let frame: ServerFrame | null;
    try {
      frame = decodeServerFrame(text);
    } catch (err) {
      this.reportError(err);
      return;
    }
    if (!frame) return; // a frame type from a newer gateway
    switch (frame.type) {
      case "message": {
        const sub = this.subs.get(frame.endpoint);
        sub?.handleMessage(frame);
        return;
      }
      case "gap":
        this.subs.get(frame.endpoint)?.handleGap(frame);
        return;
      case "closing":
        this.closingFrame = { code: frame.code, reason: frame.reason };
        return;
      case "unsubscribed":
        if (frame.id === undefined || frame.id === "") {
          // The gateway ended the subscription: endpoint removed (4004) or no longer permitted (4003).
          const sub = this.subs.get(frame.endpoint);
          if (sub) {
            this.subs.delete(frame.endpoint);
            sub.end(errorFromCode(frame.code ?? Codes.NotFound, frame.reason ?? "ended by the gateway", { endpoint: frame.endpoint }));
          }
          return;
        }
        break;
      case "error":
        if (frame.id === undefined || frame.id === "" || !this.pending.has(frame.id)) {
          this.reportError(errorFromCode(frame.code, frame.message));
          return;
        }
        break;
    }
    const id = "id" in frame ? frame.id : undefined;
    if (id === undefined) return;
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    this.clock.clearTimeout(p.timer);
    if (frame.type === "error") {
      const endpoint = p.sub?.endpoint;
      p.reject(errorFromCode(frame.code, frame.message, endpoint ? { endpoint } : {}));
    } else {
      p.resolve(frame);
    }
    void ws;
  }

  private readonly host: SubscriptionHost = {
    unsubscribe: (sub) => this.unsubscribe(sub),
    reportError: (err) => this.reportError(err),
  };

  private async unsubscribe(sub: Subscription<never>): Promise<void> {
    if (this.subs.get(sub.endpoint) === sub) this.subs.delete(sub.endpoint);
    const ws = this.ws;
    const wasSent = sub.wasSent;
    sub.end();
    if (!ws || !this.authenticated || !wasSent) return;
    try {
      await this.request(ws, { type: "unsubscribe", endpoint: sub.endpoint }, "unsubscribe", sub);
    } catch (err) {
      // 4004 "not subscribed" (the subscribe had failed or not landed yet) is the goal reached.
      if ((err as SluiceError).code !== Codes.NotFound) throw err;
    }
  }

  private reportError(err: unknown): void {
    const e =
      err instanceof SluiceError ? err : new SluiceError(Codes.Internal, err instanceof Error ? err.message : String(err), { cause: err });
    this.emit("error", e);
  }
}

function decodeBinary(raw: unknown): string {
  if (raw instanceof ArrayBuffer) return new TextDecoder().decode(raw);
  if (ArrayBuffer.isView(raw)) return new TextDecoder().decode(raw);
  return String(raw);
}

/** shuffled is a uniformly random permutation of list (Fisher–Yates, in place), drawing from random. */
/** @internal exported for tests */
export function shuffled<T>(list: T[], random: () => number): T[] {
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.min(i, Math.floor(random() * (i + 1)));
    [list[i], list[j]] = [list[j] as T, list[i] as T];
  }
  return list;
}
