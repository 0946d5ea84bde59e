// The gateway bridge. Today it serves its health endpoint (which checks the
// database); publishing the catalog outbox to __sluice_catalog lands next.
import http from "node:http";
import pg from "pg";
import { ConfigError, loadConfig, type BridgeConfig } from "./config.ts";

function log(message: string): void {
  process.stdout.write(`${new Date().toISOString()} ${message}\n`);
}

function startHealthServer(config: BridgeConfig, pool: pg.Pool): http.Server {
  const server = http.createServer(async (req, res) => {
    if (req.method !== "GET" || req.url !== "/healthz") {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "not found" }));
      return;
    }
    let database = "ok";
    try {
      await pool.query("select 1");
    } catch {
      database = "unreachable";
    }
    const ok = database === "ok";
    res
      .writeHead(ok ? 200 : 503, { "content-type": "application/json", "cache-control": "no-store" })
      .end(JSON.stringify({ status: ok ? "ok" : "degraded", service: "bridge", database }));
  });
  server.listen(config.port, config.host, () => log(`bridge listening on http://${config.host}:${config.port}`));
  return server;
}

function main(): void {
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
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 2, connectionTimeoutMillis: 2000 });
  pool.on("error", (err) => log(`database connection error: ${err.message}`));
  const server = startHealthServer(config, pool);

  const shutdown = (signal: string) => {
    log(`received ${signal}; shutting down`);
    server.close();
    void pool.end().finally(() => process.exit(0));
  };
  process.once("SIGINT", () => shutdown("SIGINT"));
  process.once("SIGTERM", () => shutdown("SIGTERM"));
}

main();
