import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { readFileSync } from "node:fs";
import { processTree } from "./test-runner.ts";

/** Running, as opposed to ended (gone, or a zombie its parent has not reaped yet). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

test("processTree finds a process's children and grandchildren (what a hung step's kill must reach)", async () => {
  // sh starts a subshell that starts sleep: three generations.
  const child = spawn("sh", ["-c", "(sleep 30; true) & wait"], { stdio: "ignore" });
  try {
    let tree: number[] = [];
    for (let i = 0; i < 50 && tree.length < 3; i++) {
      await new Promise((r) => setTimeout(r, 20));
      tree = processTree(child.pid!);
    }
    assert.equal(tree[0], child.pid);
    assert.ok(tree.length >= 3, `the sh, its subshell and sleep: ${tree}`);
    for (const pid of tree.reverse()) process.kill(pid, "SIGKILL");
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(tree.filter(running), []);
  } finally {
    child.kill("SIGKILL");
  }
});
