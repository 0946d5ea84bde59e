export const PROBE_TIMEOUT_MS = 1500;

export type ProbeResult = { state: "up"; httpStatus: number; latencyMs: number } | { state: "down"; reason: string };

// Reasons are shown on the landing page; keep them short and free of
// internal details (no hostnames, no response bodies).
export async function probeHealth(url: string, timeoutMs: number = PROBE_TIMEOUT_MS): Promise<ProbeResult> {
  if (!URL.canParse(url)) {
    return { state: "down", reason: "health URL is not valid" };
  }

  const started = performance.now();
  try {
    const res = await fetch(url, {
      cache: "no-store",
      // A redirect from a health endpoint is a misconfiguration, not health.
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: "application/json" },
    });
    // Only the status matters; release the connection instead of buffering.
    await res.body?.cancel().catch(() => {});

    if (!res.ok) {
      return { state: "down", reason: `HTTP ${res.status}` };
    }
    return {
      state: "up",
      httpStatus: res.status,
      latencyMs: Math.round(performance.now() - started),
    };
  } catch (err) {
    if (err instanceof Error && err.name === "TimeoutError") {
      return {
        state: "down",
        reason: `no answer within ${timeoutMs / 1000} s`,
      };
    }
    return { state: "down", reason: "not reachable" };
  }
}
