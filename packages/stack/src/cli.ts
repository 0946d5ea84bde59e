// The `./sluice` command. `start` runs the local stack in the foreground until
// Ctrl-C; `test` runs every test of every package against a stack it starts.
import { parseArgs } from "node:util";
import { loadConfig, type Profile } from "./config.ts";
import { StackError, redactUrl } from "./errors.ts";
import { say } from "./log.ts";
import { runDir, startStack } from "./stack.ts";
import { Supervisor } from "./supervisor.ts";
import { runAllTests } from "./test-runner.ts";

const USAGE = `usage:
  ./sluice start [--profile dev|test]   start the whole stack; Ctrl-C stops it
  ./sluice test                         run every test against a stack it starts`;

function fail(err: unknown): never {
  if (err instanceof StackError) {
    process.stderr.write(`\nsluice: ${err.message}\n`);
  } else {
    process.stderr.write(`\nsluice: unexpected error (a bug; please report it):\n${(err as Error)?.stack ?? err}\n`);
  }
  process.exit(1);
}

async function start(profile: Profile): Promise<void> {
  const config = loadConfig(profile);
  const supervisor = new Supervisor(runDir(config));
  let stopping: Promise<void> | undefined;
  const stop = (code: number, why: string) => {
    if (!stopping) {
      say(why);
      stopping = supervisor.stopAll().then(() => {
        say("stopped");
        process.exit(code);
      });
    }
    return stopping;
  };
  process.on("SIGINT", () => void stop(130, "stopping (SIGINT)"));
  process.on("SIGTERM", () => void stop(143, "stopping (SIGTERM)"));
  supervisor.onUnexpectedExit = (proc, code, signal) =>
    void stop(1, `${proc.spec.name} exited unexpectedly (${signal ?? `code ${code}`}); stopping the stack`);

  try {
    const urls = await startStack(config, supervisor);
    if (stopping) return;
    const lines = [
      "",
      `Sluice is running (${profile} profile, data in ${config.dataDir})`,
      `  Portal    ${urls.portal}`,
      `  Gateway   ${urls.gateway}   (health: ${urls.gateway}/healthz)`,
      `  Bridge    ${urls.bridge}   (health: ${urls.bridge}/healthz)`,
      `  Kafka     ${urls.kafkaBrokers.join(",")}${config.externalKafkaBrokers ? "" : "   (local, KRaft)"}`,
      `  Registry  ${redactUrl(urls.schemaRegistryUrl)}${config.externalSchemaRegistryUrl ? "" : "   (local Apicurio, Confluent-compatible API)"}`,
      `  Postgres  ${config.externalDatabaseUrl ? "from DATABASE_URL" : `127.0.0.1:${config.ports.postgres} (embedded; credentials in ${config.dataDir}/postgres-credentials.json)`}`,
      ...(urls.setupUrl
        ? ["", "  No admin exists yet. Create the first one with this one-time link (valid 24 hours):", `    ${urls.setupUrl}`]
        : []),
      "Press Ctrl-C to stop everything.",
      "",
    ];
    for (const line of lines) say(line);
  } catch (err) {
    if (stopping) return;
    await supervisor.stopAll();
    fail(err);
  }
}

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { profile: { type: "string", default: "dev" }, help: { type: "boolean", short: "h" } },
  });
  const [command] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return;
  }
  const profile = values.profile;
  if (profile !== "dev" && profile !== "test") throw new StackError(`--profile must be dev or test, not "${profile}".`);
  if (command === "start") return start(profile);
  if (command === "test") process.exit(await runAllTests());
  throw new StackError(`unknown command "${command}".\n${USAGE}`);
}

main().catch(fail);
