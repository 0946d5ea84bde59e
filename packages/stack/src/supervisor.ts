// Runs the stack's long-lived processes. Each child gets its own process group
// (detached), so stopping it also stops whatever it spawned (Next.js workers, the
// JVM's helpers) and a Ctrl-C in the terminal reaches only the launcher, which then
// stops the children in order. The pids are recorded so that a launcher killed with
// SIGKILL leaves nothing behind after the next start (see reapLeftovers).
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { StackError } from "./errors.ts";
import { pipeLines, prefixedLogger, say, type Logger } from "./log.ts";

export interface ProcessSpec {
  name: string;
  command: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  uid?: number;
  gid?: number;
  /** Signal asking for a graceful stop (postgres wants SIGINT for a fast shutdown). */
  stopSignal?: NodeJS.Signals;
  stopTimeoutMs?: number;
}

export interface ManagedProcess {
  spec: ProcessSpec;
  child: ChildProcess;
  log: Logger;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stopping: boolean;
}

interface PidRecord {
  name: string;
  pid: number;
  /** Start time in clock ticks since boot: with the pid, it names one process for good. */
  startTime: string;
}

/** Field 22 of /proc/<pid>/stat (after the parenthesised command, which may hold spaces). */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

export class Supervisor {
  private readonly processes: ManagedProcess[] = [];
  private readonly pidFile: string;
  /** Set by stopAll: a start still in flight must not spawn anything after it. */
  private closed = false;
  /** Called when a child exits while the stack is meant to be running. */
  onUnexpectedExit?: (proc: ManagedProcess, code: number | null, signal: NodeJS.Signals | null) => void;

  constructor(runDir: string) {
    mkdirSync(runDir, { recursive: true });
    this.pidFile = path.join(runDir, "pids.json");
  }

  /**
   * Stops processes a previous launcher of this data dir left running (it was killed
   * before it could stop them). A pid counts only if its start time is unchanged, so
   * a recycled pid of an unrelated process is never touched.
   */
  async reapLeftovers(): Promise<void> {
    if (!existsSync(this.pidFile)) return;
    let records: PidRecord[] = [];
    try {
      records = JSON.parse(readFileSync(this.pidFile, "utf8"));
    } catch {
      // A torn file from a crash; nothing we can trust in it.
    }
    const leftovers = records.filter((r) => isAlive(r.pid) && processStartTime(r.pid) === r.startTime);
    for (const r of leftovers) {
      say(`stopping ${r.name} (pid ${r.pid}) left running by an earlier start`);
      killGroup(r.pid, "SIGTERM");
    }
    const deadline = Date.now() + 15_000;
    while (leftovers.some((r) => isAlive(r.pid)) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
    for (const r of leftovers) if (isAlive(r.pid)) killGroup(r.pid, "SIGKILL");
    this.savePids();
  }

  start(spec: ProcessSpec): ManagedProcess {
    if (this.closed) throw new StackError(`not starting ${spec.name}: the stack is stopping`);
    const log = prefixedLogger(spec.name);
    const options: SpawnOptions = {
      cwd: spec.cwd,
      env: spec.env ?? process.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      uid: spec.uid,
      gid: spec.gid,
    };
    const child = spawn(spec.command, spec.args, options);
    pipeLines(child.stdout, log);
    pipeLines(child.stderr, log);
    const proc: ManagedProcess = {
      spec,
      child,
      log,
      stopping: false,
      exited: new Promise((resolve) => {
        child.on("exit", (code, signal) => resolve({ code, signal }));
        child.on("error", (err) => {
          log(`could not start ${spec.command}: ${err.message}`);
          resolve({ code: 127, signal: null });
        });
      }),
    };
    void proc.exited.then(({ code, signal }) => {
      if (!proc.stopping) this.onUnexpectedExit?.(proc, code, signal);
    });
    this.processes.push(proc);
    this.savePids();
    return proc;
  }

  /**
   * Runs a one-shot step (a build, an initdb) with the same logging and cleanup as a
   * service, and resolves with its exit code. Its exit is expected, not a crash.
   */
  async run(spec: ProcessSpec): Promise<number | null> {
    const proc = this.start(spec);
    proc.stopping = true;
    const { code } = await proc.exited;
    const i = this.processes.indexOf(proc);
    if (i >= 0) this.processes.splice(i, 1);
    this.savePids();
    return code;
  }

  /** Stops every process, newest first, each with its graceful signal then SIGKILL. */
  async stopAll(): Promise<void> {
    this.closed = true;
    for (const proc of [...this.processes].reverse()) {
      await this.stop(proc);
    }
    this.processes.length = 0;
    this.savePids();
  }

  private async stop(proc: ManagedProcess): Promise<void> {
    proc.stopping = true;
    const pid = proc.child.pid;
    if (pid === undefined || proc.child.exitCode !== null || proc.child.signalCode !== null) {
      // The leader is gone, but its group may not be (e.g. a crashed Next.js leaving workers).
      if (pid !== undefined) killGroup(pid, "SIGKILL");
      return;
    }
    killGroup(pid, proc.spec.stopSignal ?? "SIGTERM");
    const timeout = proc.spec.stopTimeoutMs ?? 10_000;
    const timedOut = await Promise.race([
      proc.exited.then(() => false),
      new Promise<boolean>((r) => setTimeout(() => r(true), timeout).unref()),
    ]);
    if (timedOut) proc.log(`did not stop within ${timeout / 1000}s; killing it`);
    // Also clears any straggler in the group once the leader has exited.
    killGroup(pid, "SIGKILL");
    await proc.exited;
    proc.log("stopped");
  }

  private savePids(): void {
    const records: PidRecord[] = this.processes
      .filter((p) => p.child.pid !== undefined)
      .map((p) => ({ name: p.spec.name, pid: p.child.pid!, startTime: processStartTime(p.child.pid!) ?? "" }));
    writeFileSync(this.pidFile, JSON.stringify(records, null, 2));
  }
}
