/** Retries `attempt` until it stops throwing: the catalog reaches the gateway asynchronously. */
export async function eventually<T>(what: string, attempt: () => Promise<T>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`${what}: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
