import type { ManagedProcess } from "./supervisor.ts";
import { StackError } from "./errors.ts";

/**
 * Polls `check` until it returns true. Fails early, with a clear message, when the
 * process that should become ready exits instead.
 */
export async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  options: { timeoutMs: number; proc?: ManagedProcess; intervalMs?: number },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let exited = false;
  void options.proc?.exited.then(() => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new StackError(`${what} exited while starting; its log lines above say why.`);
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 250));
  }
  throw new StackError(`${what} did not become ready within ${options.timeoutMs / 1000}s; its log lines above may say why.`);
}

export async function httpOk(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
  await res.body?.cancel();
  return res.ok;
}
