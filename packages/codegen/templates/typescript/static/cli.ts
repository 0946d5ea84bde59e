#!/usr/bin/env node
@@HEADER@@
// Command line for the run contract shared by every generated Sluice client:
//   SLUICE_TOKEN (required), SLUICE_GATEWAY_URL or --gateway (optional: one URL or several nodes, comma-separated)
//   node dist/cli.js subscribe PATH        → {"subscribed":PATH}, then one JSON line per message
//   node dist/cli.js publish PATH JSON     → the acknowledgement as one JSON line
// Status and errors go to stderr. Exit codes (the same in every generated client):
// 0 done, 1 error, 2 usage, 3 no token or token refused, 4 token expired, 5 token revoked, 6 no gateway reachable.
import type { WebSocketConstructor } from "@sluice/sdk";

import { @@CLIENT@@, keyOf, paths, type Message, type SluiceError } from "./client.js";

const EXIT = { error: 1, usage: 2, tokenRefused: 3, tokenExpired: 4, tokenRevoked: 5, noGateway: 6 } as const;

const USAGE = `Usage: node dist/cli.js COMMAND [ARGS]

  subscribe PATH                     print messages of an endpoint as JSON lines (until stopped)
  publish PATH JSON                  publish one message, print the acknowledgement
@@USAGE@@
Options: --gateway URL[,URL...]      the gateway node(s), before COMMAND
Environment: SLUICE_TOKEN (required), SLUICE_GATEWAY_URL (optional; nodes separated by commas)`;

/** Per-channel commands: name → [number of path parameters, path builder, operation]. */
const COMMANDS: Record<string, [number, (...args: string[]) => string, "subscribe" | "publish"]> = {
@@COMMANDS@@
};

const note = (text: string) => process.stderr.write(`sluice: ${text}\n`);
const print = (value: unknown) => process.stdout.write(JSON.stringify(value) + "\n");

function fail(text: string, code = 1): never {
  note(text);
  process.exit(code);
}

/** Ends the program after an error that ends the client: one line, its exit code (see EXIT). */
function end(err: unknown, context: string): never {
  const e = err as Partial<SluiceError> & Error;
  switch (e?.code) {
    case 4009:
      fail("token revoked (4009): mint a new token in the portal", EXIT.tokenRevoked);
    case 4008:
      fail("token expired (4008): mint a new token in the portal", EXIT.tokenExpired);
    case 4001:
      fail(`token refused (4001): ${e.message}`, EXIT.tokenRefused);
    case 3: // Disconnected before the first connection: no node let the client in
      if (/^cannot connect to/.test(e.message)) fail(`no gateway reachable: ${e.message}`, EXIT.noGateway);
  }
  fail(`${context}: ${describe(err)}`, EXIT.error);
}

function describe(err: unknown): string {
  const e = err as Partial<SluiceError> & Error;
  return e && typeof e.code === "number" ? `${e.name} ${e.code}: ${e.message}` : String(e?.message ?? err);
}

async function connect(): Promise<@@CLIENT@@> {
  const token = process.env.SLUICE_TOKEN;
  if (!token) fail("no token: set SLUICE_TOKEN to an app token from the portal (Apps → your app → Tokens)", EXIT.tokenRefused);
  // Node 22+ and browsers have a global WebSocket; Node 20 uses the ws package.
  const WebSocket = ((globalThis as { WebSocket?: WebSocketConstructor }).WebSocket ??
    (await import("ws")).WebSocket) as unknown as WebSocketConstructor;
  let client: @@CLIENT@@;
  try {
    client = await @@CLIENT@@.connect({ token, WebSocket, ...(gateway ? { gatewayUrl: gateway } : {}) });
  } catch (err) {
    end(err, "connect");
  }
  client.sdk.on("disconnected", (e) => {
    if (e.willReconnect) note(`disconnected (${e.code}${e.reason ? ` ${e.reason}` : ""}), reconnecting to ${e.nextUrl}`);
  });
  client.sdk.on("error", (e) => note(describe(e)));
  return client;
}

function checkPath(path: string | undefined): string {
  if (!path || !/^\/[^/]+\/.+/.test(path)) fail(`expected an endpoint path such as ${JSON.stringify(@@EXAMPLE_PATH@@)}, got ${JSON.stringify(path ?? "")}`, 2);
  return path;
}

async function subscribe(path: string): Promise<void> {
  const client = await connect();
  let stopping = false;
  const stop = async () => {
    stopping = true;
    await client.close().catch(() => {});
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  client.sdk.on("closed", ({ error }) => {
    if (error && !stopping) end(error, "connection closed");
  });
  const subscription = client.subscribe(path, (m: Message) => {
    const line: Record<string, unknown> = {
      endpoint: m.endpoint,
      key: keyOf(m.endpoint),
      epoch: m.position.epoch,
      partition: m.position.partition,
      seq: m.position.seq,
      ts: m.ts,
      data: m.data instanceof Uint8Array ? Buffer.from(m.data).toString("base64") : m.data,
    };
    if (m.encoding) line.encoding = m.encoding;
    print(line);
  });
  subscription.on("subscribed", (info) => {
    if (info.resumed) note(`resubscribed to ${info.endpoint}${subscription.position ? ` after seq ${subscription.position.seq}` : ""}`);
  });
  subscription.on("gap", (g) => note(`gap on ${g.endpoint} partition ${g.partition}: seq ${g.fromSeq}..${g.toSeq - 1} will not arrive (${g.reason})`));
  subscription.on("end", ({ error }) => stopping || (error ? end(error, "subscription ended") : fail("subscription ended")));
  try {
    await subscription.ready;
  } catch (err) {
    end(err, `subscribe ${path}`);
  }
  print({ subscribed: path });
}

async function publish(path: string, json: string | undefined): Promise<void> {
  if (json === undefined) fail("usage: publish PATH JSON", 2);
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch {
    fail(`the payload is not JSON: ${json}`, 2);
  }
  const client = await connect();
  try {
    const ack = await client.publish(path, data);
    print({ endpoint: ack.endpoint, epoch: ack.epoch, partition: ack.partition, seq: ack.seq });
  } catch (err) {
    end(err, `publish ${path}`);
  } finally {
    await client.close().catch(() => {});
  }
}

let gateway: string | undefined; // --gateway, over SLUICE_GATEWAY_URL

async function main(argv: string[]): Promise<void> {
  if (argv[0] === "--gateway" && argv.length >= 2) {
    gateway = argv[1];
    argv = argv.slice(2);
  }
  const [command, ...args] = argv;
  if (command === "subscribe") return subscribe(checkPath(args[0]));
  if (command === "publish") return publish(checkPath(args[0]), args[1]);
  const known = command ? COMMANDS[command] : undefined;
  if (known) {
    const [params, path, op] = known;
    if (args.length < params + (op === "publish" ? 1 : 0)) fail(`${command}: missing arguments\n${USAGE}`, 2);
    return op === "subscribe" ? subscribe(path(...args.slice(0, params))) : publish(path(...args.slice(0, params)), args[params]);
  }
  if (!command || command === "help" || command === "--help" || command === "-h") {
    process.stdout.write(USAGE + "\n");
    return;
  }
  fail(`unknown command ${JSON.stringify(command)}\n${USAGE}`, 2);
}

main(process.argv.slice(2)).catch((err) => fail(describe(err)));
