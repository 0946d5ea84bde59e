// The start command as a user meets it: clear one-line errors for what they can fix,
// a stack that comes up healthy, stops on Ctrl-C without leaving a process behind,
// keeps its data across restarts, and cleans up after a launcher killed with SIGKILL;
// a first start with every port moved, whose every step finds the stack's
// PostgreSQL and Kafka; and a start against an external secured Kafka (the test
// stack's SASL_SSL listener) configured by environment variables only, as the
// README shows. Runs the real CLI on its own ports and data dirs, beside the
// test-runner's stack.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { after, describe, test } from "node:test";
import { securedKafkaFromEnv } from "@sluice/kafka-settings/test-support/secured-kafka";
import { Kafka, logLevel } from "kafkajs";
import pg from "pg";
import { REPO_ROOT, type StackUrls } from "../src/config.ts";
import { isAlive } from "../src/supervisor.ts";
import { processesUsing } from "../src/test-runner.ts";

const CLI = path.join(REPO_ROOT, "packages/stack/src/cli.ts");
const DATA_DIR = path.join(REPO_ROOT, ".sluice/test-lifecycle");
const PORTS = {
  SLUICE_PORTAL_PORT: "3200",
  SLUICE_GATEWAY_PORT: "8280",
  SLUICE_BRIDGE_PORT: "8290",
  // Outside the ephemeral range (32768-60999 here): a port in it can be taken
  // by any outgoing connection of a test running alongside, as 54340 once was.
  SLUICE_POSTGRES_PORT: "15440",
  SLUICE_KAFKA_PORT: "29092",
  SLUICE_KAFKA_CONTROLLER_PORT: "29093",
  SLUICE_SCHEMA_REGISTRY_PORT: "28081",
};

/** Every port moved off the dev, test and lifecycle defaults above. */
const MOVED_DATA_DIR = path.join(REPO_ROOT, ".sluice/test-moved-ports");
const MOVED_PORTS = {
  SLUICE_PORTAL_PORT: "3400",
  SLUICE_GATEWAY_PORT: "8480",
  SLUICE_BRIDGE_PORT: "8490",
  SLUICE_POSTGRES_PORT: "15450",
  SLUICE_KAFKA_PORT: "19192",
  SLUICE_KAFKA_CONTROLLER_PORT: "19193",
  SLUICE_SCHEMA_REGISTRY_PORT: "18181",
};

/** A dev stack on an external Kafka: no Kafka ports of its own. */
const EXTERNAL_DATA_DIR = path.join(REPO_ROOT, ".sluice/test-external-secured");
const EXTERNAL_PORTS = {
  SLUICE_PORTAL_PORT: "3600",
  SLUICE_GATEWAY_PORT: "8680",
  SLUICE_BRIDGE_PORT: "8690",
  SLUICE_POSTGRES_PORT: "15460",
  SLUICE_SCHEMA_REGISTRY_PORT: "28281",
};

/** Where a CLI run keeps its data and listens. */
interface Place {
  dataDir: string;
  ports: Record<string, string>;
}

const LIFECYCLE: Place = { dataDir: DATA_DIR, ports: PORTS };

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function startCli(profile: "dev" | "test", env: NodeJS.ProcessEnv = {}, place: Place = LIFECYCLE): Run {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...place.ports, SLUICE_DATA_DIR: place.dataDir, ...env };
  // The runner's stack exports these; a test decides for itself whether they are set.
  if (!("DATABASE_URL" in env)) delete childEnv.DATABASE_URL;
  if (!("KAFKA_BROKERS" in env)) delete childEnv.KAFKA_BROKERS;
  if (!("SCHEMA_REGISTRY_URL" in env)) delete childEnv.SCHEMA_REGISTRY_URL;
  const child = spawn(process.execPath, ["--import", "tsx", CLI, "start", "--profile", profile], {
    cwd: REPO_ROOT,
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (c) => (out += c));
  child.stderr!.on("data", (c) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => out, exited };
}

async function expectCleanFailure(run: Run, expected: RegExp): Promise<string> {
  const code = await run.exited;
  const out = run.output();
  assert.equal(code, 1, `exit code; output:\n${out}`);
  assert.match(out, expected);
  assert.doesNotMatch(out, /^\s+at .+:\d+:\d+\)?$/m, "a clear message, not a stack trace");
  return out;
}

async function waitReady(run: Run, place: Place = LIFECYCLE): Promise<StackUrls> {
  const file = path.join(place.dataDir, "run/stack.json");
  let exited = false;
  void run.exited.then(() => (exited = true));
  const deadline = Date.now() + 10 * 60_000;
  while (!exited && Date.now() < deadline) {
    // stack.json is removed before each start below, so its presence means this run is ready.
    if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8"));
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.fail(`the stack did not become ready:\n${run.output()}`);
}

function trackedPids(place: Place = LIFECYCLE): number[] {
  return JSON.parse(readFileSync(path.join(place.dataDir, "run/pids.json"), "utf8")).map((r: { pid: number }) => r.pid);
}

async function assertNothingLeft(pids: number[], place: Place = LIFECYCLE): Promise<void> {
  const alive = pids.filter(isAlive);
  const using = processesUsing(place.dataDir);
  assert.deepEqual([...alive, ...using], [], "processes left running after the stack stopped");
}

/** Stops run with SIGINT; it tracked postgres, kafka, the registry, gateway, bridge and portal (no kafka with an external one). */
async function stopWithCtrlC(run: Run, place: Place = LIFECYCLE, processes = 6): Promise<void> {
  const pids = trackedPids(place);
  assert.ok(pids.length >= processes, `expected ${processes} tracked processes, got ${pids}`);
  run.child.kill("SIGINT");
  assert.equal(await run.exited, 130, run.output());
  await assertNothingLeft(pids, place);
}

async function healthy(urls: StackUrls): Promise<void> {
  for (const url of [
    `${urls.portal}/api/healthz`,
    `${urls.gateway}/healthz`,
    `${urls.bridge}/healthz`,
    `${urls.schemaRegistryUrl}/subjects`,
  ]) {
    const res = await fetch(url);
    assert.equal(res.status, 200, url);
  }
}

const kafkaAdmin = (brokers: string[]) => new Kafka({ brokers, logLevel: logLevel.NOTHING }).admin();

describe("./sluice start", { concurrency: false }, () => {
  rmSync(DATA_DIR, { recursive: true, force: true });
  after(() => rmSync(DATA_DIR, { recursive: true, force: true }));

  test("a busy port gives one clear message and starts nothing", async () => {
    const blocker = net.createServer().listen(Number(PORTS.SLUICE_PORTAL_PORT), "127.0.0.1");
    await new Promise((r) => blocker.once("listening", r));
    try {
      await expectCleanFailure(startCli("test"), /port 3200 \(the portal; set SLUICE_PORTAL_PORT to use another\) is already in use/);
      assert.equal(existsSync(path.join(DATA_DIR, "postgres")), false, "nothing should have started");
    } finally {
      blocker.close();
    }
  });

  test("an unreachable DATABASE_URL gives one clear message without the password", async () => {
    const out = await expectCleanFailure(
      startCli("dev", { DATABASE_URL: "postgres://app:s3cret-pw@127.0.0.1:1/sluice" }),
      /Cannot reach DATABASE_URL \(postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/sluice\)/,
    );
    assert.doesNotMatch(out, /s3cret-pw/);
  });

  test("an unreachable KAFKA_BROKERS gives one clear message", async () => {
    await expectCleanFailure(startCli("dev", { KAFKA_BROKERS: "127.0.0.1:1" }), /Cannot reach Kafka at KAFKA_BROKERS=127\.0\.0\.1:1/);
  });

  test("an unreachable SCHEMA_REGISTRY_URL gives one clear message without the password", async () => {
    const out = await expectCleanFailure(
      startCli("dev", {
        SCHEMA_REGISTRY_URL: "http://127.0.0.1:1/apis/ccompat/v7",
        SCHEMA_REGISTRY_BASIC_AUTH_USERNAME: "reg",
        SCHEMA_REGISTRY_BASIC_AUTH_PASSWORD: "s3cret-pw",
      }),
      /Cannot use the schema registry: SCHEMA_REGISTRY_URL \(http:\/\/127\.0\.0\.1:1\/apis\/ccompat\/v7\)/,
    );
    assert.doesNotMatch(out, /s3cret-pw/);
  });

  test("a missing Java gives one clear message", async () => {
    await expectCleanFailure(startCli("test", { SLUICE_JAVA: "/nonexistent/java" }), /Java not found .*Java 17 or newer/);
  });

  test("starts healthy, stops on Ctrl-C with nothing left, and keeps its data across restarts", async () => {
    const stackJson = path.join(DATA_DIR, "run/stack.json");

    const first = startCli("test");
    const urls = await waitReady(first);
    await healthy(urls);
    const db = new pg.Client({ connectionString: urls.databaseUrl });
    await db.connect();
    await db.query("insert into users (email, role) values ('restart-marker@example.com', 'admin')");
    await db.end();
    const admin = kafkaAdmin(urls.kafkaBrokers);
    await admin.connect();
    // waitForLeaders off (kafkajs defaults it on): its wait asks the metadata of a topic the
    // broker may not list yet and gives up on UNKNOWN_TOPIC_OR_PARTITION (seen
    // in CI); the topic is looked for until it is listed instead.
    await admin.createTopics({ topics: [{ topic: "restart-marker", numPartitions: 1 }], waitForLeaders: false });
    for (let i = 0; i < 100 && !(await admin.listTopics()).includes("restart-marker"); i++) await new Promise((r) => setTimeout(r, 100));
    await admin.disconnect();
    await stopWithCtrlC(first);

    rmSync(stackJson, { force: true });
    const second = startCli("test");
    const urls2 = await waitReady(second);
    await healthy(urls2);
    const db2 = new pg.Client({ connectionString: urls2.databaseUrl });
    await db2.connect();
    const { rowCount } = await db2.query("select 1 from users where email = 'restart-marker@example.com'");
    await db2.end();
    assert.equal(rowCount, 1, "the PostgreSQL data survived the restart");
    const admin2 = kafkaAdmin(urls2.kafkaBrokers);
    await admin2.connect();
    assert.ok((await admin2.listTopics()).includes("restart-marker"), "the Kafka data survived the restart");
    await admin2.disconnect();

    // A launcher killed outright cannot stop its children; the next start must.
    const orphans = trackedPids();
    second.child.kill("SIGKILL");
    await second.exited;
    assert.ok(orphans.some(isAlive), "children outlive a SIGKILLed launcher (else this test proves nothing)");
    rmSync(stackJson, { force: true });
    const third = startCli("test");
    await healthy(await waitReady(third));
    assert.deepEqual(orphans.filter(isAlive), [], "the next start stopped what the killed launcher left");
    assert.match(third.output(), /left running by an earlier start/);
    await stopWithCtrlC(third);
  });
});

// Found when a new user started the stack on other ports: the portal's prepare
// step was not given the stack's Kafka and fell back to 127.0.0.1:9092. The dev
// profile on a fresh data dir runs every step (the demo API, which checks its
// topic in Kafka, and the demo feeder included), so each must find the stack.
describe("./sluice start with every port moved", { concurrency: false }, () => {
  const place: Place = { dataDir: MOVED_DATA_DIR, ports: MOVED_PORTS };
  rmSync(MOVED_DATA_DIR, { recursive: true, force: true });
  after(() => rmSync(MOVED_DATA_DIR, { recursive: true, force: true }));

  test("a fresh dev stack comes up on the moved ports, serves, and stops cleanly", async () => {
    const run = startCli("dev", { SLUICE_DEMO: "1" }, place);
    const urls = await waitReady(run, place);
    const host = "http://127.0.0.1:";
    assert.deepEqual(
      [urls.portal, urls.gateway, urls.bridge, urls.kafkaBrokers, new URL(urls.databaseUrl).port],
      [
        host + MOVED_PORTS.SLUICE_PORTAL_PORT,
        host + MOVED_PORTS.SLUICE_GATEWAY_PORT,
        host + MOVED_PORTS.SLUICE_BRIDGE_PORT,
        [`127.0.0.1:${MOVED_PORTS.SLUICE_KAFKA_PORT}`],
        MOVED_PORTS.SLUICE_POSTGRES_PORT,
      ],
    );
    await healthy(urls);
    const ready = await fetch(`${urls.gateway}/readyz`);
    assert.equal(ready.status, 200, "the gateway has read the catalog from the stack's Kafka");
    assert.match(
      run.output(),
      /added the demo API "Demo vehicles"/,
      "the prepare step documented the demo topic it found in the stack's Kafka",
    );
    const admin = kafkaAdmin(urls.kafkaBrokers);
    await admin.connect();
    try {
      // The bridge is healthy (and the gateway ready, on an empty catalog)
      // before its first term creates the catalog topic: wait for it.
      let topics = await admin.listTopics();
      for (let i = 0; i < 60 && !topics.includes("__sluice_catalog"); i++) {
        await new Promise((r) => setTimeout(r, 500));
        topics = await admin.listTopics();
      }
      assert.ok(topics.includes("demo-vehicles"), `the demo topic is in the stack's Kafka: ${topics}`);
      assert.ok(topics.includes("__sluice_catalog"), `the bridge published the catalog to the stack's Kafka: ${topics}`);
      // The demo feeder writes to the stack's Kafka too.
      const offsets = await admin.fetchTopicOffsets("demo-vehicles");
      let fed = false;
      for (let i = 0; i < 60 && !fed; i++) {
        fed = (await admin.fetchTopicOffsets("demo-vehicles")).some((o) => Number(o.high) > 0);
        if (!fed) await new Promise((r) => setTimeout(r, 500));
      }
      assert.ok(fed, `the demo feeder produced to the stack's Kafka: ${JSON.stringify(offsets)}`);
      // The Avro demo: its schema in the stack's own registry, its feeder writing the wire format.
      assert.ok(topics.includes("demo-orders-avro"), `the Avro demo topic is in the stack's Kafka: ${topics}`);
      const subjects = (await (await fetch(`${urls.schemaRegistryUrl}/subjects`)).json()) as string[];
      assert.ok(subjects.includes("demo-orders-avro-value"), `the demo schema is in the stack's registry: ${subjects}`);
      assert.ok(subjects.includes("demo-orders-avro-key"), `the demo key schema is in the stack's registry: ${subjects}`);
      let avroFed = false;
      for (let i = 0; i < 60 && !avroFed; i++) {
        avroFed = (await admin.fetchTopicOffsets("demo-orders-avro")).some((o) => Number(o.high) > 0);
        if (!avroFed) await new Promise((r) => setTimeout(r, 500));
      }
      assert.ok(avroFed, "the Avro demo feeder produced to the stack's Kafka");
    } finally {
      await admin.disconnect();
    }
    await stopWithCtrlC(run, place);
  });
});

// The README's copy-paste example for a secured cluster, run for real: only
// environment variables (the password from a file), against the test stack's
// SASL_SSL listener with SCRAM-SHA-512. Its own catalog topic, so the runner's
// stack is not disturbed.
describe("./sluice start against an external secured Kafka, configured by environment variables only", { concurrency: false }, () => {
  const place: Place = { dataDir: EXTERNAL_DATA_DIR, ports: EXTERNAL_PORTS };
  const secured = securedKafkaFromEnv();
  const user = "sluice-bridge";
  const secretsDir = path.join(EXTERNAL_DATA_DIR, "..", "test-external-secured-secrets");
  const passwordFile = path.join(secretsDir, "kafka-password");
  const catalogTopic = `__sluice_catalog_external_${process.pid}`;
  rmSync(EXTERNAL_DATA_DIR, { recursive: true, force: true });
  mkdirSync(secretsDir, { recursive: true, mode: 0o700 });
  writeFileSync(passwordFile, `${secured.users[user]}\n`, { mode: 0o600 });
  after(async () => {
    rmSync(EXTERNAL_DATA_DIR, { recursive: true, force: true });
    rmSync(secretsDir, { recursive: true, force: true });
    const admin = kafkaAdmin((process.env.KAFKA_BROKERS ?? "").split(","));
    await admin.connect();
    await admin.deleteTopics({ topics: [catalogTopic] }).catch(() => {});
    await admin.disconnect();
  });
  const readmeEnv = (passwordFileName = passwordFile) => ({
    KAFKA_BROKERS: secured.saslSslBrokers.join(","),
    KAFKA_SECURITY_PROTOCOL: "SASL_SSL",
    KAFKA_SASL_MECHANISM: "SCRAM-SHA-512",
    KAFKA_SASL_USERNAME: user,
    KAFKA_SASL_PASSWORD_FILE: passwordFileName,
    KAFKA_TLS_CA_FILE: secured.caFile,
    SLUICE_CATALOG_TOPIC: catalogTopic,
  });

  test("a wrong password: the preflight names KAFKA_SASL_PASSWORD within 15 s and starts nothing", async () => {
    const wrong = path.join(secretsDir, "wrong-password");
    writeFileSync(wrong, "not-the-password\n", { mode: 0o600 });
    const started = Date.now();
    const out = await expectCleanFailure(startCli("dev", readmeEnv(wrong), place), /KAFKA_SASL_PASSWORD: /);
    assert.ok(
      Date.now() - started < 15_000 + 10_000,
      `the launcher's own start (pnpm, tsx) plus the preflight took ${Date.now() - started} ms`,
    );
    assert.match(out, /refused the connection/);
    assert.equal(existsSync(path.join(EXTERNAL_DATA_DIR, "postgres")), false, "nothing should have started");
    assert.ok(!out.includes(secured.users[user]!), "no password in the output");
  });

  test("every component connects over SASL_SSL: the bridge publishes the catalog and the gateway reads it", async () => {
    const run = startCli("dev", readmeEnv(), place);
    const urls = await waitReady(run, place);
    assert.deepEqual(urls.kafkaBrokers, secured.saslSslBrokers);
    await healthy(urls);
    const ready = await fetch(`${urls.gateway}/readyz`);
    assert.equal(ready.status, 200, "the gateway has read the catalog over SASL_SSL");
    const out = run.output();
    assert.match(out, /Kafka client settings: KAFKA_SECURITY_PROTOCOL=SASL_SSL/, "the preflight says which settings it uses");
    assert.match(out, /KAFKA_SASL_PASSWORD=\[from file /);
    assert.ok(!out.includes(secured.users[user]!), "no password in the output");
    assert.doesNotMatch(out, /demo/i, "no demo against an external Kafka");
    const admin = kafkaAdmin((process.env.KAFKA_BROKERS ?? "").split(","));
    await admin.connect();
    try {
      assert.ok((await admin.listTopics()).includes(catalogTopic), "the bridge created its catalog topic over SASL_SSL");
    } finally {
      await admin.disconnect();
    }
    await stopWithCtrlC(run, place, 5);
  });
});
