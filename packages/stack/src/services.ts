// Sluice's own processes: the Go gateway, the Node bridge and the Next.js portal.
// Each is built when needed (go build and turbo both cache) and then run under the
// supervisor with the stack's addresses in its environment (stack-env.ts).
import { createRequire } from "node:module";
import path from "node:path";
import type { StackConfig } from "./config.ts";
import { StackError } from "./errors.ts";
import { serviceUrl as url, stackEnv, type Infra } from "./stack-env.ts";
import type { ManagedProcess, Supervisor } from "./supervisor.ts";
import { httpOk, waitUntil } from "./wait.ts";

export function gatewayBinary(config: StackConfig): string {
  return path.join(config.dataDir, "bin", "sluice-gateway");
}

export async function buildGateway(config: StackConfig, supervisor: Supervisor): Promise<void> {
  const code = await supervisor.run({
    name: "gateway",
    command: "go",
    args: ["build", "-o", gatewayBinary(config), "./cmd/gateway"],
    cwd: path.join(config.repoRoot, "apps/gateway"),
    // Never let go reach for a toolchain download: there may be no network.
    env: { ...process.env, GOTOOLCHAIN: "local" },
  });
  if (code === 127) throw new StackError("Go is needed to build the gateway: install Go 1.26+ (https://go.dev/doc/install) and retry.");
  if (code !== 0) throw new StackError("Building the gateway failed; see the [gateway] lines above.");
}

export async function buildPortal(config: StackConfig, supervisor: Supervisor): Promise<void> {
  // turbo replays a cached build when the portal's inputs are unchanged.
  const code = await supervisor.run({
    name: "portal",
    command: path.join(config.repoRoot, "node_modules/.bin/turbo"),
    args: ["run", "build", "--filter=@sluice/portal", "--output-logs=errors-only", "--log-prefix=none"],
    cwd: config.repoRoot,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", TURBO_TELEMETRY_DISABLED: "1", TURBO_NO_UPDATE_NOTIFIER: "1" },
  });
  if (code !== 0) throw new StackError("Building the portal failed; see the [portal] lines above.");
}

/**
 * Starts the three services and waits until each answers its health check.
 * `portalOnly` is what only the portal may see (its secret key).
 */
export async function startServices(
  config: StackConfig,
  supervisor: Supervisor,
  infra: Infra,
  portalOnly: NodeJS.ProcessEnv,
): Promise<void> {
  const gateway = supervisor.start({
    name: "gateway",
    command: gatewayBinary(config),
    args: [],
    env: stackEnv(config, infra),
  });

  const bridge = supervisor.start({
    name: "bridge",
    command: process.execPath,
    args: ["--import", "tsx", "src/main.ts"],
    cwd: path.join(config.repoRoot, "apps/gateway-bridge"),
    env: stackEnv(config, infra),
  });

  const portalDir = path.join(config.repoRoot, "apps/portal");
  const nextBin = createRequire(path.join(portalDir, "package.json")).resolve("next/dist/bin/next");
  const portal = supervisor.start({
    name: "portal",
    command: process.execPath,
    args: [nextBin, "start", "--hostname", config.host, "--port", String(config.ports.portal)],
    cwd: portalDir,
    env: stackEnv(config, infra, { NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", ...portalOnly }),
  });

  const ready = (what: string, proc: ManagedProcess, healthUrl: string) =>
    waitUntil(what, () => httpOk(healthUrl), { timeoutMs: 60_000, proc });
  await Promise.all([
    ready("The gateway", gateway, `${url(config, config.ports.gateway)}/healthz`),
    ready("The bridge", bridge, `${url(config, config.ports.bridge)}/healthz`),
    ready("The portal", portal, `${url(config, config.ports.portal)}/api/healthz`),
  ]);
}

export function serviceUrls(config: StackConfig) {
  return {
    portal: url(config, config.ports.portal),
    gateway: url(config, config.ports.gateway),
    bridge: url(config, config.ports.bridge),
  };
}
