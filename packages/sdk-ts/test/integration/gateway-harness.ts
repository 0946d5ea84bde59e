/**
 * A real gateway for the SDK's integration suite: builds the binary (unless
 * SLUICE_GATEWAY_BIN names one), gives it its own catalog topic on the shared
 * Kafka (KAFKA_BROKERS), writes a signing key, an app and an endpoint, and mints
 * ES256 tokens — the TypeScript mirror of bench/fanout.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createWriteStream, mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { SignJWT, exportJWK, generateKeyPair } from "jose";
import { Kafka, logLevel, type Admin, type Producer } from "kafkajs";

export const brokers = (process.env.KAFKA_BROKERS ?? "127.0.0.1:9092").split(",");

const gatewayDir = fileURLToPath(new URL("../../../../apps/gateway", import.meta.url));

/** buildGateway returns the path of a gateway binary, building it once with the local Go toolchain. */
export function buildGateway(workDir: string): string {
  const given = process.env.SLUICE_GATEWAY_BIN;
  if (given) return given;
  const bin = join(workDir, "sluice-gateway");
  execFileSync("go", ["build", "-o", bin, "./cmd/gateway"], {
    cwd: gatewayDir,
    env: { ...process.env, GOTOOLCHAIN: "local" },
    stdio: "inherit",
  });
  return bin;
}

/** freePort finds a loopback port that nothing listens on, preferring 18580-18589. */
export async function freePort(): Promise<number> {
  const tryPort = (port: number) =>
    new Promise<number | undefined>((resolve) => {
      const srv = createServer();
      srv.once("error", () => resolve(undefined));
      srv.listen(port, "127.0.0.1", () => {
        const got = (srv.address() as { port: number }).port;
        srv.close(() => resolve(got));
      });
    });
  for (let p = 18580; p <= 18589; p++) {
    const got = await tryPort(p);
    if (got) return got;
  }
  return (await tryPort(0)) as number;
}

/** A gateway process started by Harness.startNode. */
export interface GatewayNode {
  port: number;
  wsUrl: string;
  process: ChildProcess;
}

async function stopProcess(p: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return;
  const exited = new Promise((resolve) => p.once("exit", resolve));
  p.kill(signal);
  await exited;
}

export class Harness {
  readonly run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;
  readonly catalogTopic = `__sluice_catalog_sdk_${this.run}`;
  readonly topic = `sdk-it-${this.run}`;
  readonly app = `app-${this.run}`;
  readonly kid = `kid-${this.run}`;
  readonly workDir = mkdtempSync(join(tmpdir(), "sluice-sdk-it-"));
  readonly kafka = new Kafka({ clientId: "sdk-it", brokers, logLevel: logLevel.NOTHING });
  admin!: Admin;
  producer!: Producer;
  bin!: string;
  port!: number;
  gateway: ChildProcess | undefined;
  readonly nodes: GatewayNode[] = [];
  private privateKey!: Awaited<ReturnType<typeof generateKeyPair>>["privateKey"];
  private starts = 0;

  get wsUrl(): string {
    return `ws://127.0.0.1:${this.port}/ws`;
  }

  async setUp(): Promise<void> {
    this.bin = buildGateway(this.workDir);
    this.admin = this.kafka.admin();
    await this.admin.connect();
    this.producer = this.kafka.producer({ allowAutoTopicCreation: false });
    await this.producer.connect();
    await this.admin.createTopics({
      waitForLeaders: true,
      topics: [
        { topic: this.catalogTopic, numPartitions: 1, configEntries: [{ name: "cleanup.policy", value: "compact" }] },
        { topic: this.topic, numPartitions: 3 },
      ],
    });
    const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
    this.privateKey = privateKey;
    const jwk = await exportJWK(publicKey);
    await this.putCatalog(`key/${this.kid}`, {
      v: 1,
      kid: this.kid,
      alg: "ES256",
      status: "active",
      jwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y },
    });
    await this.putCatalog(`app/${this.app}`, { v: 1, id: this.app, name: "SDK integration", tokens_not_before: null });
    await this.putCatalog("endpoint/sdk-ep", {
      v: 1,
      id: "sdk-ep",
      path: `/${this.topic}/{k}`,
      topic: this.topic,
      key: null,
      key_param: "k",
      operations: ["subscribe", "publish"],
      payload_format: "json",
      json_schema: null,
      api: { id: "sdk-api", name: "SDK integration", version: "1.0.0" },
    });
    this.port = await freePort();
  }

  async putCatalog(key: string, value: unknown): Promise<void> {
    await this.producer.send({
      topic: this.catalogTopic,
      acks: -1,
      messages: [{ key, value: value === null ? null : JSON.stringify(value) }],
    });
  }

  /** token mints an ES256 token for the app that may subscribe to and publish on every key of the topic. */
  async token(opts: { jti?: string; ttlSeconds?: number } = {}): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ permissions: { sub: [], pub: [], all: [`/${this.topic}/*`] } })
      .setProtectedHeader({ alg: "ES256", kid: this.kid, typ: "JWT" })
      .setIssuer("sluice")
      .setAudience("sluice-gateway")
      .setSubject(this.app)
      .setIssuedAt(now)
      .setExpirationTime(now + (opts.ttlSeconds ?? 3600))
      .setJti(opts.jti ?? randomUUID())
      .sign(this.privateKey);
  }

  /** startGateway starts the binary on this.port and waits until /readyz answers 200. */
  async startGateway(): Promise<void> {
    this.gateway = await this.launch(this.port);
  }

  /**
   * startNode starts one more gateway node on its own port, on the same Kafka and
   * catalog topic (another node of the same cluster). stopNode ends it.
   */
  async startNode(port?: number): Promise<GatewayNode> {
    const nodePort = port ?? (await freePort());
    const process = await this.launch(nodePort);
    const node: GatewayNode = { port: nodePort, wsUrl: `ws://127.0.0.1:${nodePort}/ws`, process };
    this.nodes.push(node);
    return node;
  }

  /** stopNode SIGKILLs (by default) a node from startNode: no closing frame, like a crashed node. */
  async stopNode(node: GatewayNode, signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    await stopProcess(node.process, signal);
  }

  /** killGateway SIGKILLs the gateway: no closing frame, no close handshake, like a crashed node. */
  async killGateway(signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    const gw = this.gateway;
    if (!gw) return;
    await stopProcess(gw, signal);
    this.gateway = undefined;
  }

  private async launch(port: number): Promise<ChildProcess> {
    const log = createWriteStream(join(this.workDir, `gateway-${++this.starts}-${port}.log`));
    const gw = spawn(
      this.bin,
      ["-addr", `127.0.0.1:${port}`, "-kafka-brokers", brokers.join(","), "-catalog-topic", this.catalogTopic, "-shutdown-grace", "2s"],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    gw.stdout?.pipe(log);
    gw.stderr?.pipe(log);
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (gw.exitCode !== null) throw new Error(`gateway exited with ${gw.exitCode}; see ${this.workDir}`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}/readyz`);
        if (res.status === 200) return gw;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        gw.kill("SIGKILL");
        throw new Error(`gateway not ready in 60 s; see ${this.workDir}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async tearDown(): Promise<void> {
    await this.killGateway("SIGTERM");
    for (const node of this.nodes.splice(0)) await this.stopNode(node, "SIGTERM");
    await this.producer?.disconnect();
    if (this.admin) {
      await this.admin.deleteTopics({ topics: [this.topic, this.catalogTopic] }).catch(() => {});
      await this.admin.disconnect();
    }
  }
}
