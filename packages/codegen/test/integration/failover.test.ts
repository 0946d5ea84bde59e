// Every generated command-line client against two real gateway nodes (the
// gateway binary started twice on one Kafka and one catalog topic, by the SDK's
// integration harness). The document lists both nodes as servers, so the
// client's default server list holds them. Each node is SIGKILLed in turn
// mid-stream (the first one comes back before the second dies), so whichever
// node the client started on, it fails over at least once: every message must
// still arrive exactly once and in order per key. Then a revoked token must end
// the client with one line on stderr and exit code 5 (codegen README, "Exit codes"),
// as must an expired token (4), a forged one (3) and a list of dead nodes (6).
//
// Needs KAFKA_BROKERS and each language's toolchain (as the portal's live
// generated-clients test does); run with `pnpm test:integration`.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { after, before, describe, test } from "node:test";

import { freePort, Harness, type GatewayNode } from "../../../sdk-ts/test/integration/gateway-harness.js";
import { generateClient, languages } from "../../src/index.js";
import { scratchFolder, writeTree } from "../scratch-tree.js";

const scratch = scratchFolder("failover");
const KEYS = ["s0", "s1"];
const PER_KEY = 45;

/** The sample document with its prices channel on the harness's topic and both nodes as servers. */
function documentFor(h: Harness, nodes: GatewayNode[]): string {
  const doc = JSON.parse(readFileSync(new URL("../fixtures/market-data.asyncapi.json", import.meta.url), "utf8"));
  doc.channels.pricesSymbol.address = `/${h.topic}/{symbol}`;
  doc.channels.pricesSymbol["x-sluice-topic"] = h.topic;
  delete doc.components.messages.pricesSymbolMessage.payload;
  const first = doc.servers;
  doc.servers = {};
  nodes.forEach((node, i) => {
    const suffix = i === 0 ? "" : String(i + 1);
    for (const [name, server] of Object.entries(first as Record<string, Record<string, unknown>>)) {
      doc.servers[`${name}${suffix}`] = { ...server, host: `127.0.0.1:${node.port}` };
    }
  });
  return JSON.stringify(doc);
}

/** A running client: its stdout lines, stderr text and exit. */
function start(argv: string[], cwd: string, env: Record<string, string>) {
  // Without SLUICE_GATEWAY_URL (the test runner exports the stack's gateway there,
  // which would win over the document's two nodes and knows none of this test's keys).
  const { SLUICE_GATEWAY_URL: _stackGateway, ...inherited } = process.env;
  const child = spawn(argv[0]!, argv.slice(1), { cwd, env: { ...inherited, GOTOOLCHAIN: "local", ...env } });
  const lines: string[] = [];
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += String(d)));
  createInterface({ input: child.stdout }).on("line", (l) => lines.push(l));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, lines, exited, stderr: () => stderr };
}

/** Traceback (Python), stack frames (Node, Java), goroutine dumps (Go). */
const STACK = /Traceback|^\s+at |^goroutine |panic:/m;

/** Runs a client to its end (at most 60 s): exit code and stderr. */
async function run(argv: string[], cwd: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const p = start(argv, cwd, env);
  const timer = setTimeout(() => p.child.kill("SIGKILL"), 60_000);
  const code = await p.exited;
  clearTimeout(timer);
  return { code, stderr: p.stderr() };
}

/** what may be a function: its text (e.g. the client's stderr so far) is read when the wait fails. */
async function waitFor(cond: () => boolean, what: string | (() => string), timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === "string" ? what : what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("generated clients against two gateway nodes", { timeout: 30 * 60_000 }, () => {
  const h = new Harness();
  let nodes: GatewayNode[] = [];

  before(async () => {
    await h.setUp();
    nodes = [await h.startNode(), await h.startNode()];
  });
  after(async () => {
    await h.tearDown();
  });

  for (const language of languages.filter((l) => l.kind === "cli")) {
    test(`${language.label}: fails over to the other node with every message once and in order; a revoked, expired or refused token and no reachable node end it politely`, async () => {
      const root = writeTree(scratch, language.id, await generateClient(documentFor(h, nodes), language.id));
      for (const [cmd, ...args] of language.build) {
        const r = spawnSync(cmd!, args, { cwd: root, encoding: "utf8", env: { ...process.env, GOTOOLCHAIN: "local" } });
        assert.equal(r.status, 0, `${[cmd, ...args].join(" ")}:\n${r.stdout}\n${r.stderr}`);
      }

      // Failover: one subscriber per key, messages with per-key sequence numbers.
      const token = await h.token();
      const subs = KEYS.map((key) => start(language.subscribe(`/${h.topic}/${language.id}-${key}`), root, { SLUICE_TOKEN: token }));
      try {
        for (const s of subs)
          await waitFor(
            () => s.lines.some((l) => l.startsWith('{"subscribed"')),
            () => `${language.id}: subscribed (stderr: ${s.stderr().slice(-2000)})`,
          );
        const got = () => subs.map((s) => s.lines.filter((l) => l.includes('"data"')).map((l) => JSON.parse(l).data.n as number));
        let sent = 0;
        const produce = async (upTo: number) => {
          for (; sent < upTo; sent++) {
            await h.producer.send({
              topic: h.topic,
              acks: -1,
              messages: KEYS.map((key) => ({ key: `${language.id}-${key}`, value: JSON.stringify({ n: sent }) })),
            });
            await new Promise((r) => setTimeout(r, 20));
          }
        };
        const delivered = () => got().reduce((n, l) => n + l.length, 0);
        for (const [i, node] of nodes.entries()) {
          // Kill node i mid-stream, keep producing while it is down, then bring it back.
          const target = ((i + 1) * PER_KEY) / 3;
          const streaming = produce(target);
          await waitFor(() => delivered() >= KEYS.length * (target - PER_KEY / 6), `${language.id}: messages before killing node ${i}`);
          await h.stopNode(node, "SIGKILL");
          await streaming;
          const restarted = await h.startNode(node.port);
          nodes[i] = restarted;
        }
        await produce(PER_KEY);
        await waitFor(() => delivered() >= KEYS.length * PER_KEY, `${language.id}: all messages (have ${delivered()})`, 120_000);
        await new Promise((r) => setTimeout(r, 500)); // room for a duplicate to show up
        for (const [k, list] of got().entries()) {
          assert.deepEqual(
            list,
            Array.from({ length: PER_KEY }, (_, n) => n),
            `${language.id} key ${KEYS[k]}: every message exactly once, in order; stderr: ${subs[k]!.stderr()}`,
          );
        }
        for (const s of subs) assert.equal(s.child.exitCode, null, `${language.id}: still running; stderr: ${s.stderr()}`);
      } finally {
        for (const s of subs) s.child.kill("SIGTERM");
        await Promise.all(subs.map((s) => s.exited));
      }

      // Revocation: one line, exit code 5, no traceback or stack trace.
      const jti = `revoke-${language.id}-${h.run}`;
      const revoked = start(language.subscribe(`/${h.topic}/${language.id}-revoked`), root, { SLUICE_TOKEN: await h.token({ jti }) });
      await waitFor(() => revoked.lines.some((l) => l.startsWith('{"subscribed"')), `${language.id}: subscribed before revocation`);
      await h.putCatalog(`revoked/${jti}`, { v: 1, jti, app: h.app, expires_at: Math.floor(Date.now() / 1000) + 3600 });
      const code = await Promise.race([revoked.exited, new Promise<string>((r) => setTimeout(() => r("still running"), 30_000))]);
      if (code === "still running") revoked.child.kill("SIGKILL");
      assert.equal(code, 5, `${language.id}: exit code 5 after revocation; stderr: ${revoked.stderr()}`);
      assert.equal(revoked.stderr(), "sluice: token revoked (4009): mint a new token in the portal\n");

      // A token that expires while subscribed, one refused at connect, and no gateway at all.
      const path = `/${h.topic}/${language.id}-polite`;
      const expiring = await run(language.subscribe(path), root, { SLUICE_TOKEN: await h.token({ ttlSeconds: 3 }) });
      assert.equal(expiring.code, 4, `${language.id}: exit code 4 at expiry; stderr: ${expiring.stderr}`);
      assert.equal(expiring.stderr, "sluice: token expired (4008): mint a new token in the portal\n");
      const forged = `${(await h.token()).slice(0, -8)}AAAAAAAA`;
      const refused = await run(language.subscribe(path), root, { SLUICE_TOKEN: forged });
      assert.equal(refused.code, 3, `${language.id}: exit code 3 for a refused token; stderr: ${refused.stderr}`);
      assert.match(refused.stderr, /^sluice: token refused \(4001\): [^\n]+\n$/);
      const dead = `http://127.0.0.1:${await freePort()},http://127.0.0.1:1`; // nothing listens on either
      const nowhere = await run(language.subscribe(path), root, { SLUICE_TOKEN: token, SLUICE_GATEWAY_URL: dead });
      assert.equal(nowhere.code, 6, `${language.id}: exit code 6 with no gateway; stderr: ${nowhere.stderr}`);
      assert.match(nowhere.stderr.trimEnd().split("\n").at(-1)!, /^sluice: no gateway reachable/);
      for (const r of [expiring, refused, nowhere]) assert.doesNotMatch(r.stderr, STACK, `${language.id}: no stack trace`);
    });
  }
});
