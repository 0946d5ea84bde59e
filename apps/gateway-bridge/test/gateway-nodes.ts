// Real gateway nodes for the bridge's integration tests: the gateway binary
// (SLUICE_GATEWAY_BIN, or built once with the local Go toolchain) run as
// processes on a scratch catalog topic the test writes itself (a signing key,
// apps, endpoints), with ES256 tokens minted here as the portal would.
//
// packages/sdk-ts/test/integration/gateway-harness.ts does the same for the
// SDK's suite, but as one class for one node on fixed ports with fixed
// endpoints; sharing it would mean importing another package's test directory
// (or a new package for ~100 lines), so this is a small launcher of its own
// for any number of nodes, each with its usage metering flags.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { SignJWT, exportJWK, generateKeyPair } from "jose";
import { Partitioners } from "kafkajs";
import { brokers, deleteTopic, freePort, kafka } from "./helpers.ts";

const gatewayDir = fileURLToPath(new URL("../../gateway", import.meta.url));
let builtBinary: string | undefined;
let buildDir: string | undefined;
// The binary is ~30 MB: removed when the file's tests end (on Linux a running node keeps its copy).
after(() => {
  if (buildDir) rmSync(buildDir, { recursive: true, force: true });
});

/** The gateway binary: SLUICE_GATEWAY_BIN, else built once per test process. */
export function gatewayBinary(): string {
  const given = process.env.SLUICE_GATEWAY_BIN;
  if (given) return given;
  if (!builtBinary) {
    buildDir = mkdtempSync(join(tmpdir(), "sluice-bridge-gw-"));
    const bin = join(buildDir, "sluice-gateway");
    execFileSync("go", ["build", "-o", bin, "./cmd/gateway"], {
      cwd: gatewayDir,
      env: { ...process.env, GOTOOLCHAIN: "local" },
      stdio: "inherit",
    });
    builtBinary = bin;
  }
  return builtBinary;
}

export interface EndpointSpec {
  id: string;
  path: string;
  topic: string;
  key: string | null;
  keyParam: string | null;
  operations: Array<"subscribe" | "publish">;
}

/**
 * A catalog topic written by the test (the records of packages/protocol/
 * CATALOG.md), with one active ES256 signing key; deleted with the topics
 * it was given when the file ends.
 */
export async function scratchGatewayCatalog(options: { topic: string; dataTopics: Array<{ topic: string; partitions: number }> }) {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({
      waitForLeaders: true,
      topics: [
        { topic: options.topic, numPartitions: 1, configEntries: [{ name: "cleanup.policy", value: "compact" }] },
        ...options.dataTopics.map((t) => ({ topic: t.topic, numPartitions: t.partitions })),
      ],
    });
  } finally {
    await admin.disconnect();
  }
  after(async () => {
    for (const t of [options.topic, ...options.dataTopics.map((d) => d.topic)]) await deleteTopic(t);
  });

  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false });
  await producer.connect();
  after(() => producer.disconnect());
  const put = async (key: string, value: unknown) => {
    await producer.send({ topic: options.topic, acks: -1, messages: [{ key, value: JSON.stringify(value) }] });
  };

  const kid = `kid-${randomUUID().slice(0, 8)}`;
  const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk = await exportJWK(publicKey);
  await put(`key/${kid}`, { v: 1, kid, alg: "ES256", status: "active", jwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y } });

  return {
    topic: options.topic,
    async putApp(id: string, name: string) {
      await put(`app/${id}`, { v: 1, id, name, tokens_not_before: null });
    },
    async putEndpoint(e: EndpointSpec) {
      await put(`endpoint/${e.id}`, {
        v: 1,
        id: e.id,
        path: e.path,
        topic: e.topic,
        key: e.key,
        key_param: e.keyParam,
        operations: e.operations,
        payload_format: "json",
        json_schema: null,
        api: { id: "usage-e2e-api", name: "Usage end to end", version: "1.0.0" },
      });
    },
    /** A token of app that may subscribe to and publish on the given paths (or `/*` prefixes). */
    async token(app: string, all: string[]): Promise<string> {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ permissions: { sub: [], pub: [], all } })
        .setProtectedHeader({ alg: "ES256", kid, typ: "JWT" })
        .setIssuer("sluice")
        .setAudience("sluice-gateway")
        .setSubject(app)
        .setIssuedAt(now)
        .setExpirationTime(now + 3600)
        .setJti(randomUUID())
        .sign(privateKey);
    },
  };
}

export interface GatewayNode {
  nodeId: string;
  /** The node's WebSocket URL. */
  wsUrl: string;
  child: ChildProcess;
  output(): string;
  /** Sends the signal (SIGKILL: a crash, SIGTERM: a graceful stop) and waits for the exit; the exit code (null when killed). */
  stop(signal: "SIGKILL" | "SIGTERM"): Promise<number | null>;
}

const runningNodes = new Set<GatewayNode>();

/** Starts a node and resolves once /readyz says it has loaded the catalog. */
export async function startGatewayNode(options: {
  nodeId: string;
  catalogTopic: string;
  usageTopic: string;
  usageInterval: string;
}): Promise<GatewayNode> {
  const port = await freePort();
  const child = spawn(
    gatewayBinary(),
    [
      "-addr",
      `127.0.0.1:${port}`,
      "-kafka-brokers",
      brokers.join(","),
      "-catalog-topic",
      options.catalogTopic,
      "-usage-topic",
      options.usageTopic,
      "-usage-interval",
      options.usageInterval,
      "-node-id",
      options.nodeId,
      "-shutdown-grace",
      "2s",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const node: GatewayNode = {
    nodeId: options.nodeId,
    wsUrl: `ws://127.0.0.1:${port}/ws`,
    child,
    output: () => out,
    async stop(signal) {
      runningNodes.delete(node);
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  runningNodes.add(node);
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gateway ${options.nodeId} exited with ${child.exitCode}\n${out}`);
    const status = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return node;
    if (Date.now() > deadline) throw new Error(`gateway ${options.nodeId} not ready in 30 s\n${out}`);
    await delay(100);
  }
}

/** Kills every node a test left running (call in after()). */
export async function killAllGatewayNodes(): Promise<void> {
  await Promise.all([...runningNodes].map((n) => n.stop("SIGKILL")));
}
