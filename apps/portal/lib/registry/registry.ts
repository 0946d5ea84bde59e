// The portal's schema registry client: one per server process, built when first
// needed from the SCHEMA_REGISTRY_* variables (@sluice/schema-registry). No
// SCHEMA_REGISTRY_URL is no registry: the registry formats are then refused
// with a 422 naming payloadFormat. Registry failures become AppErrors the way
// Kafka's do: unreachable is a 503, invalid settings a 500 naming the variable.
import {
  NOT_FOUND_CODES,
  type RegistryError,
  RegistrySettingsError,
  isRegistryError,
  type RegisteredSchema,
  type SubjectVersion,
  loadRegistrySettings,
} from "@sluice/schema-registry";

import { AppError } from "../errors";
import { FailFastRegistry } from "./fail-fast-registry";

/** What the endpoint domain asks the registry; tests may pass their own. */
export interface SchemaRegistry {
  subjects(): Promise<string[]>;
  version(subject: string, version: number | "latest"): Promise<SubjectVersion>;
  schemaById(id: number): Promise<RegisteredSchema>;
}

export const registryUnavailable = (detail: string) =>
  new AppError("unavailable", 503, `The schema registry is not reachable (${detail}). Try again when it is back.`);

export const registryMisconfigured = (err: RegistrySettingsError) =>
  new AppError("misconfigured", 500, `The portal's schema registry settings are invalid (${err.message}).`);

interface Holder {
  env?: string;
  client?: FailFastRegistry | null;
}

/**
 * The shared client, or null when SCHEMA_REGISTRY_URL is unset. Rebuilt when
 * the variables change (tests point the process at another registry); kept on
 * globalThis because Next.js may bundle this module more than once.
 */
export function portalRegistry(env: Record<string, string | undefined> = process.env): SchemaRegistry | null {
  const g = globalThis as typeof globalThis & { __sluiceRegistry?: Holder };
  g.__sluiceRegistry ??= {};
  const holder = g.__sluiceRegistry;
  const key = JSON.stringify(Object.entries(env).filter(([name]) => name.startsWith("SCHEMA_REGISTRY_")));
  if (holder.env !== key) {
    let settings: ReturnType<typeof loadRegistrySettings>;
    try {
      settings = loadRegistrySettings(env);
    } catch (err) {
      if (err instanceof RegistrySettingsError) throw registryMisconfigured(err);
      throw err;
    }
    if (holder.client) holder.client.close();
    // Fail-fast: after one request finds the registry away, pages do not each wait for the timeout.
    holder.client = settings ? FailFastRegistry.forSettings(settings) : null;
    holder.env = key;
  }
  return holder.client ?? null;
}

/** Disconnects the shared client, so a test process can exit. */
export function closePortalRegistry(): void {
  const g = globalThis as typeof globalThis & { __sluiceRegistry?: Holder };
  g.__sluiceRegistry?.client?.close();
  g.__sluiceRegistry = undefined;
}

/**
 * Runs a registry request; "unavailable" becomes the 503. A "not found"
 * RegistryError is rethrown as is, for the caller to name the field
 * (isNotFound tells it by the registry's code).
 */
export async function askRegistry<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isRegistryError(err) && err.kind === "unavailable") throw registryUnavailable(err.message);
    throw err;
  }
}

/** Whether err is the registry's "not found", of a subject (40401), a version (40402) or any (no code given). */
export function isNotFound(err: unknown, what?: "subject" | "version"): err is RegistryError {
  if (!isRegistryError(err) || err.kind !== "not_found") return false;
  if (what === undefined) return true;
  return err.registryCode === NOT_FOUND_CODES[what];
}

/** The registry's name for a format's schemas, to tell a subject of another kind. */
export const SCHEMA_TYPE_OF = { avro: "AVRO", protobuf: "PROTOBUF", "json-schema": "JSON" } as const;
