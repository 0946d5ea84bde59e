// A registry that is away should cost a page one timeout, not one per request:
// a registry host that drops packets makes every request wait the client's full
// timeout (5 s), and a page asks several times (the endpoint's value and key
// schemas, the AsyncAPI document for its client code). After a request finds
// the registry unreachable, requests fail at once for QUIET_MS with that same
// error (still an "unavailable" RegistryError: the routes answer 503 and the
// pages show their notice), and after that each request is a probe with a short
// timeout until one gets an answer. A registry that answers, even "not found",
// is reachable again.
import { isRegistryError, RegistryClient, RegistryError, type RegistrySettings } from "@sluice/schema-registry";

import type { SchemaRegistry } from "./registry";

/** How long a failure is answered from memory. */
export const QUIET_MS = 5_000;
/** The timeout of a request while the registry is known to be away. */
export const PROBE_TIMEOUT_MS = 1_000;

/** The two clients the wrapper chooses between; tests may pass their own. */
export interface RegistryClients {
  normal: SchemaRegistry & { close(): void };
  probe: SchemaRegistry & { close(): void };
}

export class FailFastRegistry implements SchemaRegistry {
  readonly #clients: RegistryClients;
  readonly #now: () => number;
  readonly #quietMs: number;
  /** The last failure that found the registry unreachable; undefined while it answers. */
  #down?: { at: number; error: RegistryError };

  constructor(clients: RegistryClients, options: { now?: () => number; quietMs?: number } = {}) {
    this.#clients = clients;
    this.#now = options.now ?? Date.now;
    this.#quietMs = options.quietMs ?? QUIET_MS;
  }

  /** The portal's client for settings: the usual timeout, and PROBE_TIMEOUT_MS while the registry is away. */
  static forSettings(settings: RegistrySettings): FailFastRegistry {
    return new FailFastRegistry({
      normal: new RegistryClient(settings),
      probe: new RegistryClient(settings, { timeoutMs: PROBE_TIMEOUT_MS }),
    });
  }

  subjects(): Promise<string[]> {
    return this.#ask((client) => client.subjects());
  }

  version(subject: string, version: number | "latest"): Promise<Awaited<ReturnType<SchemaRegistry["version"]>>> {
    return this.#ask((client) => client.version(subject, version));
  }

  schemaById(id: number): Promise<Awaited<ReturnType<SchemaRegistry["schemaById"]>>> {
    return this.#ask((client) => client.schemaById(id));
  }

  close(): void {
    this.#clients.normal.close();
    this.#clients.probe.close();
  }

  async #ask<T>(work: (client: SchemaRegistry) => Promise<T>): Promise<T> {
    const down = this.#down;
    if (down && this.#now() - down.at < this.#quietMs) {
      const ago = Math.round((this.#now() - down.at) / 1000);
      throw new RegistryError("unavailable", `${down.error.message}; not asked again: it failed ${ago} s ago`);
    }
    try {
      const answer = await work(down ? this.#clients.probe : this.#clients.normal);
      this.#down = undefined;
      return answer;
    } catch (err) {
      // Only a request that got no HTTP answer (refused, timed out, reset) says the registry is away.
      if (isRegistryError(err) && err.kind === "unavailable" && err.status === undefined) this.#down = { at: this.#now(), error: err };
      else if (isRegistryError(err)) this.#down = undefined;
      throw err;
    }
  }
}
