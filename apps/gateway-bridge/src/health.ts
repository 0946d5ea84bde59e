// GET /healthz and GET /metrics.
import http from "node:http";
import type { Admin } from "kafkajs";
import type pg from "pg";
import type { BridgeMetrics } from "./metrics.ts";
import { pendingStats } from "./outbox.ts";

export interface HealthDeps {
  pool: pg.Pool;
  admin: Admin;
  metrics: BridgeMetrics;
  isLeader: () => boolean;
}

const withTimeout = <T>(p: Promise<T>, ms: number): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error("timeout")), ms).unref())]);

async function kafkaReachable(admin: Admin): Promise<boolean> {
  try {
    await withTimeout(
      (async () => {
        await admin.connect();
        await admin.describeCluster();
      })(),
      2000,
    );
    return true;
  } catch {
    return false;
  }
}

export async function healthReport(deps: HealthDeps) {
  const [stats, kafkaOk] = await Promise.all([withTimeout(pendingStats(deps.pool), 2000).catch(() => null), kafkaReachable(deps.admin)]);
  const ok = stats !== null && kafkaOk;
  return {
    ok,
    body: {
      status: ok ? "ok" : "degraded",
      service: "bridge",
      database: stats ? "ok" : "unreachable",
      kafka: kafkaOk ? "ok" : "unreachable",
      leader: deps.isLeader() ? "yes" : "no",
      pending: stats?.pending ?? null,
      lag_seconds: stats?.oldestAgeSeconds ?? null,
    },
  };
}

export function startHttpServer(host: string, port: number, deps: HealthDeps): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    void (async () => {
      try {
        if (req.method === "GET" && req.url === "/healthz") {
          const { ok, body } = await healthReport(deps);
          res.writeHead(ok ? 200 : 503, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(body));
        } else if (req.method === "GET" && req.url === "/metrics") {
          const text = await deps.metrics.registry.metrics();
          res.writeHead(200, { "content-type": deps.metrics.registry.contentType }).end(text);
        } else {
          res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "not found" }));
        }
      } catch (err) {
        res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: String(err) }));
      }
    })();
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve(server));
  });
}
