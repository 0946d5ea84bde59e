#!/usr/bin/env node
@@HEADER@@
// Command line for the run contract shared by every generated Sluice client:
//   SLUICE_TOKEN (required), SLUICE_GATEWAY_URL (optional)
//   node dist/cli.js subscribe PATH        → {"subscribed":PATH}, then one JSON line per message
//   node dist/cli.js publish PATH JSON     → the acknowledgement as one JSON line
// Status and errors go to stderr.
import type { WebSocketConstructor } from "@sluice/sdk";

import { @@CLIENT@@, keyOf, paths, type Message, type SluiceError } from "./client.js";

const USAGE = `Usage: node dist/cli.js COMMAND [ARGS]

  subscribe PATH                     print messages of an endpoint as JSON lines (until stopped)
  publish PATH JSON                  publish one message, print the acknowledgement
@@USAGE@@
Environment: SLUICE_TOKEN (required), SLUICE_GATEWAY_URL (optional)`;

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

function describe(err: unknown): string {
  const e = err as Partial<SluiceError> & Error;
  return e && typeof e.code === "number" ? `${e.name} ${e.code}: ${e.message}` : String(e?.message ?? err);
}

async function connect(waitOnFirstConnect: boolean): Promise<@@CLIENT@@> {
  const token = process.env.SLUICE_TOKEN;
  if (!token) fail("SLUICE_TOKEN is not set: issue a token for your app in the Sluice portal (Apps → your app → Tokens) and export it", 2);
  // Node 22+ and browsers have a global WebSocket; Node 20 uses the ws package.
  const WebSocket = ((globalThis as { WebSocket?: WebSocketConstructor }).WebSocket ??
    (await import("ws")).WebSocket) as unknown as WebSocketConstructor;
  const client = await @@CLIENT@@.connect({ token, WebSocket, waitOnFirstConnect });
  client.sdk.on("disconnected", (e) => note(`disconnected (${e.code}${e.reason ? ` ${e.reason}` : ""})${e.willReconnect ? ", reconnecting" : ""}`));
  client.sdk.on("error", (e) => note(describe(e)));
  return client;
}

function checkPath(path: string | undefined): string {
  if (!path || !/^\/[^/]+\/.+/.test(path)) fail(`expected an endpoint path such as ${JSON.stringify(@@EXAMPLE_PATH@@)}, got ${JSON.stringify(path ?? "")}`, 2);
  return path;
}

async function subscribe(path: string): Promise<void> {
  const client = await connect(true);
  let stopping = false;
  const stop = async () => {
    stopping = true;
    await client.close().catch(() => {});
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  client.sdk.on("closed", ({ error }) => {
    if (error && !stopping) fail(`connection closed: ${describe(error)}`);
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
  subscription.on("end", ({ error }) => stopping || fail(`subscription ended${error ? `: ${describe(error)}` : ""}`));
  try {
    await subscription.ready;
  } catch (err) {
    fail(`subscribe ${path}: ${describe(err)}`);
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
  const client = await connect(false);
  try {
    const ack = await client.publish(path, data);
    print({ endpoint: ack.endpoint, epoch: ack.epoch, partition: ack.partition, seq: ack.seq });
  } catch (err) {
    fail(`publish ${path}: ${describe(err)}`);
  } finally {
    await client.close().catch(() => {});
  }
}

async function main(argv: string[]): Promise<void> {
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
