// What the portal needs before its first request: the key that encrypts signing
// keys at rest, and a first admin (or the one-time link that creates one).
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import type { StackConfig } from "./config.ts";
import { StackError } from "./errors.ts";

/**
 * SLUICE_SECRET_KEY from the environment, else one generated once for this data
 * dir and kept beside the database credentials (0600). Losing it makes the stored
 * signing keys unusable, so it is never regenerated while the file exists.
 */
export function portalSecretKey(config: StackConfig): string {
  const fromEnv = process.env.SLUICE_SECRET_KEY?.trim();
  if (fromEnv) return fromEnv;
  const file = path.join(config.dataDir, "portal-secret.json");
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")).secretKey;
  const secretKey = randomBytes(32).toString("base64");
  writeFileSync(file, JSON.stringify({ secretKey }), { mode: 0o600 });
  return secretKey;
}

export type FirstAdmin =
  | { kind: "exists" }
  | { kind: "created-from-env"; email: string }
  | { kind: "setup-link"; url: string; expiresAt: string };

export interface PortalPrepared {
  admin: FirstAdmin;
  /** The active token-signing key: generated at the first start, then reused. */
  signingKey: { kind: "created" | "exists"; kid: string; expiredKeys: string[] };
  /** The demo API, made on an empty catalog when the launcher feeds the demo topic. */
  demo?: { kind: "created"; apiId: string; endpointPath: string; avroEndpointPath?: string } | { kind: "skipped" };
}

/**
 * Runs apps/portal/scripts/prepare.ts against the migrated database. env is the
 * whole environment of the step (stackEnv): the demo API it may create checks
 * its topic in the stack's Kafka.
 */
export async function preparePortal(config: StackConfig, env: NodeJS.ProcessEnv): Promise<PortalPrepared> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "scripts/prepare.ts"], {
      cwd: path.join(config.repoRoot, "apps/portal"),
      env,
      timeout: 60_000,
    });
    return JSON.parse(stdout.trim().split("\n").pop()!);
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr?.trim();
    throw new StackError(`Preparing the portal (first admin, signing key) failed: ${stderr || (err as Error).message}`);
  }
}
