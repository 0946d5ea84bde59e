// Child processes for tests that run real programs (generated clients, their
// build tools): each in its own process group, so killing it also kills what it
// started (npx → node, go run → binary); every one still running when the test
// file ends is killed; every wait has a deadline.
import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants } from "node:fs";
import path from "node:path";
import { after } from "node:test";

const running = new Set<RunningProcess>();
after(async () => {
  await Promise.all([...running].map((p) => p.stop()));
});

export interface RunOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
}

export class RunningProcess {
  readonly lines: string[] = [];
  stderr = "";
  exitCode: number | null | undefined;
  readonly exited: Promise<number | null>;
  private partial = "";
  private waiters: (() => void)[] = [];
  private readonly child: ChildProcess;

  constructor(
    readonly argv: string[],
    options: RunOptions,
  ) {
    this.child = spawn(argv[0]!, argv.slice(1), { cwd: options.cwd, env: options.env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    running.add(this);
    this.child.stdout!.on("data", (chunk: Buffer) => {
      const text = this.partial + chunk.toString("utf8");
      const parts = text.split("\n");
      this.partial = parts.pop()!;
      this.lines.push(...parts.map((l) => l.replace(/\r$/, "")).filter((l) => l !== ""));
      this.wake();
    });
    this.child.stderr!.on("data", (chunk: Buffer) => {
      this.stderr += chunk.toString("utf8");
      if (this.stderr.length > 200_000) this.stderr = this.stderr.slice(-100_000);
    });
    this.exited = new Promise((resolve) => {
      this.child.on("error", (err) => {
        this.stderr += `\n${err.message}`;
      });
      this.child.on("close", (code, signal) => {
        if (this.partial) this.lines.push(this.partial);
        this.partial = "";
        this.exitCode = code ?? (signal ? -1 : null);
        running.delete(this);
        this.wake();
        resolve(this.exitCode);
      });
    });
  }

  private wake() {
    for (const w of this.waiters.splice(0)) w();
  }

  /** What a failure message should show: the command, its exit and its last output. */
  describe(): string {
    const tail = (s: string) => s.split("\n").slice(-40).join("\n");
    return `\`${this.argv.join(" ")}\` ${this.exitCode === undefined ? "still running" : `exited with ${this.exitCode}`}\nstdout:\n${tail(this.lines.join("\n"))}\nstderr:\n${tail(this.stderr)}`;
  }

  /** The first stdout line (from index `from` on) that `match` accepts, within `ms`. */
  async nextLine(what: string, match: (line: string) => boolean, ms: number, from = 0): Promise<string> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.lines.slice(from).find(match);
      if (found !== undefined) return found;
      if (this.exitCode !== undefined) throw new Error(`waiting for ${what}: ${this.describe()}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what} within ${ms / 1000} s: ${this.describe()}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits for the exit; past `ms` the process group is killed and the wait fails. */
  async finish(ms: number): Promise<number | null> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), ms)));
    const result = await Promise.race([this.exited, timedOut]);
    clearTimeout(timer);
    if (result === "timeout") {
      await this.stop();
      throw new Error(`still running after ${ms / 1000} s, killed: ${this.describe()}`);
    }
    return result;
  }

  /** SIGTERM to the whole group, SIGKILL if it is still there 3 s later. */
  async stop(): Promise<void> {
    if (this.exitCode !== undefined) return;
    signalGroup(this.child.pid, "SIGTERM");
    const timer = setTimeout(() => signalGroup(this.child.pid, "SIGKILL"), 3_000);
    await this.exited;
    clearTimeout(timer);
    // A grandchild that ignored SIGTERM and outlived its parent still goes.
    signalGroup(this.child.pid, "SIGKILL");
  }
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals) {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

/** Runs a command to completion; fails with its output unless it exits 0. */
export async function runToCompletion(argv: string[], options: RunOptions & { timeoutMs: number }): Promise<RunningProcess> {
  const proc = new RunningProcess(argv, options);
  const code = await proc.finish(options.timeoutMs);
  if (code !== 0) throw new Error(proc.describe());
  return proc;
}

/** The absolute path of `program` on PATH (or relative to `cwd` when it names a path), else undefined. */
export function findProgram(program: string, cwd: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates = program.includes("/")
    ? [path.resolve(cwd, program)]
    : (env.PATH ?? "")
        .split(path.delimiter)
        .filter(Boolean)
        .map((d) => path.join(d, program));
  return candidates.find((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
