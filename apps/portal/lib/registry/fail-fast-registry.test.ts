import assert from "node:assert/strict";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, test } from "node:test";

import { isRegistryError, RegistryClient } from "@sluice/schema-registry";

import { FailFastRegistry } from "./fail-fast-registry";
import { askRegistry, closePortalRegistry, portalRegistry } from "./registry";

// A registry that can stop answering without refusing connections (a host that
// drops packets): requests then wait for the client's timeout.
let answering = false;
const hanging: ServerResponse[] = [];
const server = createServer((_req, res) => {
  if (!answering) {
    hanging.push(res);
    return;
  }
  res.writeHead(200, { "content-type": "application/vnd.schemaregistry.v1+json" });
  res.end(JSON.stringify(["orders-value"]));
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
after(() => {
  for (const res of hanging) res.destroy();
  server.close();
});

/** How long work takes, and what it threw. */
async function timed(work: () => Promise<unknown>): Promise<{ ms: number; error?: unknown }> {
  const start = performance.now();
  try {
    await work();
    return { ms: performance.now() - start };
  } catch (error) {
    return { ms: performance.now() - start, error };
  }
}

test("an unreachable registry costs one timeout, then fails at once, then is probed with the short timeout until it answers", async () => {
  const settings = { url, auth: { kind: "none" as const } };
  let now = 0;
  const registry = new FailFastRegistry(
    { normal: new RegistryClient(settings, { timeoutMs: 800 }), probe: new RegistryClient(settings, { timeoutMs: 150 }) },
    { now: () => now, quietMs: 5_000 },
  );
  try {
    const first = await timed(() => registry.subjects());
    assert.ok(isRegistryError(first.error) && first.error.kind === "unavailable", String(first.error));
    assert.ok(first.ms >= 700, `the first request waits for the timeout (${first.ms} ms)`);

    // Within the quiet time: no request, the same kind of error (so the routes still answer 503).
    now += 4_000;
    const remembered = await timed(() => askRegistry(() => registry.version("orders-value", "latest")));
    assert.ok(remembered.ms < 100, `answered from memory (${remembered.ms} ms)`);
    assert.equal((remembered.error as { status?: number }).status, 503);
    assert.match((remembered.error as Error).message, /not reachable .*not asked again: it failed 4 s ago/);
    assert.equal(hanging.length, 1, "the registry was not asked");

    // After it: a probe, with the short timeout.
    now += 2_000;
    const probe = await timed(() => registry.subjects());
    assert.ok(isRegistryError(probe.error), String(probe.error));
    assert.ok(probe.ms < 600, `the probe gives up sooner (${probe.ms} ms)`);
    assert.equal(hanging.length, 2);

    // Back: the next probe after the quiet time gets the answer, and requests use the usual client again.
    answering = true;
    now += 6_000;
    assert.deepEqual(await registry.subjects(), ["orders-value"]);
    assert.deepEqual(await registry.subjects(), ["orders-value"]);
  } finally {
    answering = false;
    registry.close();
  }
});

test("the portal's shared client is the fail-fast one", () => {
  try {
    assert.ok(portalRegistry({ SCHEMA_REGISTRY_URL: url }) instanceof FailFastRegistry);
  } finally {
    closePortalRegistry();
  }
});
