// The gateway bridge: publishes the catalog outbox to the compacted catalog
// topic (see packages/protocol/CATALOG.md), with /healthz and /metrics.
import { ConfigError, loadConfig, type BridgeConfig } from "./config.ts";
import { startBridge } from "./bridge.ts";
import { errorText, log } from "./log.ts";

async function main(): Promise<void> {
  let config: BridgeConfig;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`bridge: invalid configuration: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  const bridge = await startBridge(config);
  const shutdown = (signal: string) => {
    log(`received ${signal}; finishing the in-flight batch and shutting down`);
    bridge.stop().then(
      () => process.exit(0),
      (err) => {
        log(`shutdown failed: ${errorText(err)}`);
        process.exit(1);
      },
    );
  };
  process.once("SIGINT", () => shutdown("SIGINT"));
  process.once("SIGTERM", () => shutdown("SIGTERM"));
}

main().catch((err) => {
  console.error(`bridge: ${errorText(err)}`);
  process.exit(1);
});
