// Issue 6, part 3: every language's generated client, downloaded through the
// portal's real download route, built with that language's own toolchain and run
// against the live gateway. Each must print a record produced to Kafka as a JSON
// line, and publish one that is read back from Kafka with its key, value and the
// `sluice-app` header. A missing toolchain fails the test with what to install.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, test } from "node:test";

import { languages, type LanguageId, type LanguageInfo } from "@sluice/codegen";
import { Kafka, logLevel, type KafkaMessage } from "kafkajs";
import { chromium } from "playwright-core";
import WebSocket from "ws";

import { createTopic } from "./catalog-helpers";
import { eventually } from "./eventually";
import { rawApi, seedUser, sessionFor, portalUrl } from "./helpers";
import { findProgram, RunningProcess, runToCompletion } from "./processes";
import { extractZip, readZip } from "./zip";

const gatewayUrl = process.env.SLUICE_GATEWAY_URL ?? "http://127.0.0.1:8080";
const kafka = new Kafka({
  clientId: "sluice-codegen-test",
  brokers: (process.env.KAFKA_BROKERS || "127.0.0.1:9092").split(","),
  logLevel: logLevel.NOTHING,
});
const producer = kafka.producer();
const consumer = kafka.consumer({ groupId: `sluice-codegen-test-${Date.now()}` });
const workDir = mkdtempSync(path.join(tmpdir(), "sluice-clients-"));
after(async () => {
  await Promise.allSettled([producer.disconnect(), consumer.disconnect()]);
  if (!process.env.SLUICE_KEEP_CLIENTS) rmSync(workDir, { recursive: true, force: true });
});

/** What installs each language's toolchain, for the failure message. */
const INSTALL_HINTS: Record<string, string> = {
  node: "Node.js 20.19+",
  npm: "Node.js 20.19+ (npm comes with it)",
  npx: "Node.js 20.19+ (npx comes with it)",
  python3: "Python 3.11+ with venv (apt-get install python3 python3-venv)",
  go: "Go 1.26+ (https://go.dev/doc/install)",
  javac: "a JDK 17+ (apt-get install openjdk-17-jdk-headless)",
  java: "a JDK 17+ (apt-get install openjdk-17-jdk-headless)",
  curl: "curl (apt-get install curl)",
  sh: "a POSIX shell",
};

// What a user's shell would have: no npm_config_* from the pnpm that runs this test.
const clientEnv = (extra: Record<string, string> = {}) =>
  ({
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_|pnpm_|PNPM_)/.test(k))),
    GOTOOLCHAIN: "local",
    ...extra,
  }) as unknown as NodeJS.ProcessEnv;

let fixture: { apiId: string; topic: string; appId: string; token: string; apiKey: string };
const received: { partition: number; message: KafkaMessage }[] = [];
const wakeConsumerWaiters: (() => void)[] = [];

before(async () => {
  const { api, key } = await seedUser("editor", "codegen");
  const topic = await createTopic("codegen", 2);
  const { data: created } = await api.POST("/apis", {
    body: { name: `Codegen ${topic}`, version: "1.0.0", description: "Generated clients under test" },
  });
  const priceSchema = { type: "object", required: ["price"], properties: { price: { type: "number" }, symbol: { type: "string" } } };
  for (const body of [
    {
      path: `/${topic}/{symbol}`,
      operations: ["subscribe", "publish"] as ("subscribe" | "publish")[],
      payloadFormat: "json" as const,
      jsonSchema: priceSchema,
      description: "Prices per symbol",
    },
    {
      path: `/${topic}/status`,
      operations: ["subscribe"] as ("subscribe" | "publish")[],
      payloadFormat: "text" as const,
      description: "Market status",
    },
  ]) {
    const { error } = await api.POST("/apis/{apiId}/endpoints", { params: { path: { apiId: created!.id } }, body });
    assert.equal(error, undefined, JSON.stringify(error));
  }
  const { data: app } = await api.POST("/apps", { body: { name: `codegen ${topic}` } });
  await api.POST("/apps/{appId}/grants", {
    params: { path: { appId: app!.id } },
    body: { endpointPattern: `/${topic}/*`, operations: ["subscribe", "publish"] },
  });
  const { data: minted, error: mintError } = await api.POST("/apps/{appId}/tokens", {
    params: { path: { appId: app!.id } },
    body: { permissions: { all: [`/${topic}/*`] }, lifetimeSeconds: 3600 },
  });
  assert.ok(minted, JSON.stringify(mintError));
  fixture = { apiId: created!.id, topic, appId: app!.id, token: minted.token, apiKey: key };

  await producer.connect();
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      received.push({ partition, message });
      for (const w of wakeConsumerWaiters.splice(0)) w();
    },
  });
  await eventually("the gateway serves the new endpoint with the new token", () => probeSubscribe(`/${topic}/probe`), 30_000);
});

/** One subscribe over the raw protocol: resolves once the gateway confirms it. */
async function probeSubscribe(endpoint: string): Promise<void> {
  const ws = new WebSocket(`${gatewayUrl.replace(/^http/, "ws")}/ws`, "sluice.v1");
  try {
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
    const answers: Record<string, unknown>[] = [];
    const next = (id: string) =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer to ${id}; got ${JSON.stringify(answers)}`)), 5_000);
        ws.on("message", (data) => {
          const frame = JSON.parse(String(data));
          answers.push(frame);
          if (frame.id === id) {
            clearTimeout(timer);
            resolve(frame);
          }
        });
      });
    ws.send(JSON.stringify({ type: "auth", id: "a", token: fixture.token }));
    const auth = await next("a");
    if (auth.type !== "authenticated") throw new Error(JSON.stringify(auth));
    ws.send(JSON.stringify({ type: "subscribe", id: "s", endpoint }));
    const sub = await next("s");
    if (sub.type !== "subscribed") throw new Error(JSON.stringify(sub));
  } finally {
    ws.close();
  }
}

/** The record at partition/offset of the fixture topic, as the test's consumer saw it. */
async function recordAt(partition: number, offset: number, ms = 30_000): Promise<KafkaMessage> {
  const deadline = Date.now() + ms;
  for (;;) {
    const hit = received.find((r) => r.partition === partition && Number(r.message.offset) === offset);
    if (hit) return hit.message;
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`no record at partition ${partition} offset ${offset} within ${ms / 1000} s; saw ${received.length}`);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.min(left, 500));
      wakeConsumerWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

/** Downloads a language's zip through /api/v1 and unpacks it; returns the client's root folder. */
async function downloadClient(language: LanguageId): Promise<string> {
  const response = await rawApi(`/apis/${fixture.apiId}/clients/${language}.zip`, { key: fixture.apiKey });
  assert.equal(response.status, 200, await response.clone().text());
  assert.equal(response.headers.get("content-type"), "application/zip");
  const bytes = new Uint8Array(await response.arrayBuffer());
  const dir = path.join(workDir, language);
  const entries = extractZip(bytes, dir);
  const folders = new Set(entries.map((e) => e.name.split("/")[0]));
  assert.equal(folders.size, 1, `one top-level folder, got ${[...folders].join(", ")}`);
  const root = path.join(dir, [...folders][0]!);
  assert.ok(readdirSync(root).includes("README.md"), `${language}: README.md at the client's root`);
  return root;
}

/** Every program the client's commands start must exist: a clear failure names what to install. */
function requirePrograms(language: LanguageInfo, commands: string[][], root: string) {
  for (const argv of commands) {
    const program = argv[0]!;
    if (!findProgram(program, root, clientEnv())) {
      const hint = INSTALL_HINTS[path.basename(program)];
      assert.fail(`The ${language.label} client needs \`${program}\`${hint ? `: install ${hint}` : ""}. Command: ${argv.join(" ")}`);
    }
  }
}

for (const language of languages.filter((l) => l.kind === "cli")) {
  test(`${language.label}: the downloaded client builds, receives a Kafka record and publishes one`, { timeout: 8 * 60_000 }, async (t) => {
    // Phase durations go to the report (diagnostics), never into assertions.
    let phaseStart = Date.now();
    const phase = (name: string) => {
      t.diagnostic(`${name}: ${((Date.now() - phaseStart) / 1000).toFixed(1)} s`);
      phaseStart = Date.now();
    };
    const root = await downloadClient(language.id);
    phase("download");
    const env = clientEnv({ SLUICE_TOKEN: fixture.token, SLUICE_GATEWAY_URL: gatewayUrl });
    const subPath = `/${fixture.topic}/sub-${language.id}`;
    const pubPath = `/${fixture.topic}/pub-${language.id}`;
    const published = { price: 100 + languages.indexOf(language), symbol: `pub-${language.id}` };

    // Programs named by path (.venv/bin/python, ./gradlew) may come from the build itself.
    const byName = (argv: string[]) => !argv[0]!.includes("/");
    requirePrograms(language, [...language.build, language.subscribe(subPath), language.publish(pubPath, "{}")].filter(byName), root);
    for (const argv of language.build) await runToCompletion(argv, { cwd: root, env, timeoutMs: 5 * 60_000 });
    requirePrograms(language, [language.subscribe(subPath), language.publish(pubPath, "{}")], root);
    phase("build");

    // Subscribe, wait until the gateway confirmed it, then produce to Kafka.
    const subscriber = new RunningProcess(language.subscribe(subPath), { cwd: root, env });
    try {
      await subscriber.nextLine("the subscribed line", (l) => parseJson(l)?.subscribed === subPath, 60_000);
      phase("subscribed");
      const data = { price: 42.5, symbol: `sub-${language.id}` };
      await producer.send({ topic: fixture.topic, messages: [{ key: `sub-${language.id}`, value: JSON.stringify(data) }] });
      const line = await subscriber.nextLine("the produced record", (l) => parseJson(l)?.endpoint === subPath, 30_000);
      const message = JSON.parse(line);
      assert.deepEqual(message.data, data, line);
      assert.equal(message.key, `sub-${language.id}`, line);
      assert.equal(typeof message.partition, "number", line);
      assert.equal(typeof message.seq, "number", line);
      assert.equal(typeof message.epoch, "string", line);
      // The contract: stdout carries only JSON lines (status goes to stderr).
      assert.deepEqual(
        subscriber.lines.filter((l) => parseJson(l) === undefined),
        [],
        "non-JSON lines on the subscriber's stdout",
      );
      phase("received");
    } finally {
      await subscriber.stop();
    }

    // Publish through the gateway; the ack's position is where Kafka has the record.
    const publisher = await runToCompletion(language.publish(pubPath, JSON.stringify(published)), { cwd: root, env, timeoutMs: 60_000 });
    assert.equal(publisher.lines.length, 1, `publish prints exactly one line, the ack: ${publisher.describe()}`);
    const ackLine = publisher.lines[0]!;
    const ack = parseJson(ackLine);
    assert.ok(ack, `the ack is not JSON: ${ackLine}`);
    assert.equal(ack.endpoint, pubPath, ackLine);
    assert.ok(typeof ack.partition === "number" && typeof ack.seq === "number", ackLine);
    const record = await recordAt(ack.partition as number, ack.seq as number);
    assert.equal(record.key?.toString(), `pub-${language.id}`);
    assert.deepEqual(JSON.parse(record.value!.toString()), published);
    assert.equal(record.headers?.["sluice-app"]?.toString(), fixture.appId);
    phase("published and read back");
  });
}

// The browser client is one HTML file: opened from file:// in Chromium (as a user
// would after unzipping), driven through its form like a person would.
const chromiumPath = process.env.SLUICE_CHROMIUM ?? "/usr/bin/chromium";
for (const language of languages.filter((l) => l.kind === "browser")) {
  test(`${language.label}: the downloaded page, opened from disk in Chromium, receives a Kafka record and publishes one`, {
    timeout: 3 * 60_000,
  }, async () => {
    const root = await downloadClient(language.id);
    const pages = readdirSync(root).filter((f) => f.endsWith(".html"));
    assert.equal(pages.length, 1, `one HTML page in the ${language.label} client, got ${pages.join(", ")}`);
    assert.ok(existsSync(chromiumPath), `Chromium is needed at ${chromiumPath}: apt-get install chromium (or set SLUICE_CHROMIUM)`);
    const browser = await chromium.launch({
      executablePath: chromiumPath,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    });
    try {
      const page = await browser.newPage();
      const external: string[] = [];
      page.on("request", (r) => {
        if (!r.url().startsWith("file:") && !r.url().startsWith(gatewayUrl.replace(/^http/, "ws")) && !r.url().startsWith(gatewayUrl))
          external.push(r.url());
      });
      await page.goto(pathToFileURL(path.join(root, pages[0]!)).href);
      const outputLines = async () => ((await page.locator("#output").textContent()) ?? "").split("\n").filter(Boolean);
      const waitForLine = async (what: string, match: (line: Record<string, unknown>) => boolean) =>
        eventually(
          what,
          async () => {
            const line = (await outputLines()).find((l) => {
              const json = parseJson(l);
              return json !== undefined && match(json);
            });
            if (!line)
              throw new Error(
                `not in the output yet; output: ${(await outputLines()).join(" | ")}; errors: ${await page.locator("#errors").textContent()}`,
              );
            return JSON.parse(line) as Record<string, unknown>;
          },
          30_000,
        );

      // The token is typed in, never part of the file.
      assert.equal(await page.locator("#token").inputValue(), "");
      await page.locator("#gateway").fill(gatewayUrl);
      await page.locator("#token").fill(fixture.token);
      await page.locator("#connect").click();

      const subPath = `/${fixture.topic}/sub-${language.id}`;
      await page.locator("#path").fill(subPath);
      await page.locator("#subscribe").click();
      await waitForLine("the subscribed line", (l) => l.subscribed === subPath);
      const data = { price: 7.25, symbol: `sub-${language.id}` };
      await producer.send({ topic: fixture.topic, messages: [{ key: `sub-${language.id}`, value: JSON.stringify(data) }] });
      const message = await waitForLine("the produced record", (l) => l.endpoint === subPath && "data" in l);
      assert.deepEqual(message.data, data);
      assert.equal(message.key, `sub-${language.id}`);

      const pubPath = `/${fixture.topic}/pub-${language.id}`;
      const published = { price: 99, symbol: `pub-${language.id}` };
      await page.locator("#path").fill(pubPath);
      await page.locator("#payload").fill(JSON.stringify(published));
      await page.locator("#publish").click();
      const ack = await waitForLine("the publish acknowledgement", (l) => l.endpoint === pubPath && typeof l.seq === "number");
      const record = await recordAt(ack.partition as number, ack.seq as number);
      assert.equal(record.key?.toString(), `pub-${language.id}`);
      assert.deepEqual(JSON.parse(record.value!.toString()), published);
      assert.equal(record.headers?.["sluice-app"]?.toString(), fixture.appId);
      assert.deepEqual(external, [], "the page loads nothing but itself and talks only to the gateway");
    } finally {
      await browser.close();
    }
  });
}

test("the portal's download link serves the same zip to a signed-in session, and sends others to sign in", async () => {
  const language = "curl";
  const viewer = await seedUser("viewer", "codegen-viewer");
  const fromApi = new Uint8Array(await (await rawApi(`/apis/${fixture.apiId}/clients/${language}.zip`, { key: viewer.key })).arrayBuffer());
  const { cookie } = await sessionFor(viewer.user.id);
  const link = `${portalUrl}/apis/${fixture.apiId}/clients/${language}.zip`;
  const fromPage = await fetch(link, { headers: { cookie } });
  assert.equal(fromPage.status, 200);
  assert.match(
    fromPage.headers.get("content-disposition") ?? "",
    /^attachment; filename="codegen-test-codegen-[a-z0-9-]+-1\.0\.0-[a-z]+\.zip"$/,
  );
  assert.deepEqual(Buffer.from(await fromPage.arrayBuffer()), Buffer.from(fromApi), "the same bytes");
  assert.ok(readZip(fromApi).length > 1);

  const anonymous = await fetch(link, { redirect: "manual" });
  assert.equal(anonymous.status, 307);
  assert.match(anonymous.headers.get("location") ?? "", /\/login\?next=/);
  assert.equal((await fetch(`${portalUrl}/apis/${fixture.apiId}/clients/cobol.zip`, { headers: { cookie } })).status, 404);
  const badLanguage = await rawApi(`/apis/${fixture.apiId}/clients/cobol.zip`, { key: viewer.key });
  assert.equal(badLanguage.status, 422);
  assert.deepEqual(
    ((await badLanguage.json()) as { errors: { field: string }[] }).errors.map((e) => e.field),
    ["language"],
  );
  assert.equal((await rawApi(`/apis/${fixture.apiId}/clients/${language}.zip`)).status, 401);
});

function parseJson(line: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(line);
    return value && typeof value === "object" ? value : undefined;
  } catch {
    return undefined;
  }
}
