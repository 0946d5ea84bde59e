// Read per call rather than at module load so a built portal picks up the
// deployment's environment instead of whatever was set during `next build`.

const DEFAULT_GATEWAY_HEALTH_URL = "http://127.0.0.1:8080/healthz";
const DEFAULT_BRIDGE_HEALTH_URL = "http://127.0.0.1:8090/healthz";

function fromEnv(name: string, fallback: string): string {
  const value = process.env[name]?.trim();
  return value ? value : fallback;
}

export function gatewayHealthUrl(): string {
  return fromEnv("SLUICE_GATEWAY_HEALTH_URL", DEFAULT_GATEWAY_HEALTH_URL);
}

export function bridgeHealthUrl(): string {
  return fromEnv("SLUICE_BRIDGE_HEALTH_URL", DEFAULT_BRIDGE_HEALTH_URL);
}
