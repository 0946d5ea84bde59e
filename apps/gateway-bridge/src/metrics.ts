// Prometheus metrics of the bridge. A registry per bridge (not prom-client's
// global one) so several bridges can live in one process in tests.
import type pg from "pg";
import { Counter, Gauge, Registry, collectDefaultMetrics } from "prom-client";
import { pendingStats, type PendingStats } from "./outbox.ts";

export class BridgeMetrics {
  readonly registry = new Registry();
  readonly published: Counter;
  readonly publishErrors: Counter;
  readonly lastPublish: Gauge;
  readonly republishDuration: Gauge;
  readonly leader: Gauge;
  readonly usageRecords: Counter<"result">;
  readonly usageErrors: Counter;
  readonly usageAppsSkipped: Counter;
  readonly usageLastInterval: Gauge;
  readonly usageRetentionDeleted: Counter;
  private statsCache: { at: number; value: Promise<PendingStats | null> } | null = null;

  constructor(pool: pg.Pool) {
    const registers = [this.registry];
    // Both outbox gauges are read from the database at scrape time, so they are
    // right on a standby bridge too (it sees the leader's lag).
    const stats = () => {
      const now = Date.now();
      if (!this.statsCache || now - this.statsCache.at > 500) {
        this.statsCache = { at: now, value: pendingStats(pool).catch(() => null) };
      }
      return this.statsCache.value;
    };
    new Gauge({
      name: "sluice_bridge_outbox_pending_rows",
      help: "Outbox rows not yet acknowledged by Kafka",
      registers,
      async collect() {
        const s = await stats();
        if (s) this.set(s.pending);
      },
    });
    new Gauge({
      name: "sluice_bridge_outbox_lag_seconds",
      help: "Age of the oldest outbox row not yet acknowledged by Kafka (0 when none)",
      registers,
      async collect() {
        const s = await stats();
        if (s) this.set(s.oldestAgeSeconds);
      },
    });
    this.published = new Counter({
      name: "sluice_bridge_records_published_total",
      help: "Catalog records acknowledged by Kafka",
      registers,
    });
    this.publishErrors = new Counter({
      name: "sluice_bridge_publish_errors_total",
      help: "Failed attempts to produce catalog records (retried)",
      registers,
    });
    this.lastPublish = new Gauge({
      name: "sluice_bridge_last_publish_timestamp_seconds",
      help: "Unix time of the last acknowledged publish",
      registers,
    });
    this.republishDuration = new Gauge({
      name: "sluice_bridge_republish_duration_seconds",
      help: "Duration of the last full catalog republish",
      registers,
    });
    this.leader = new Gauge({ name: "sluice_bridge_leader", help: "1 while this bridge holds the publisher lock", registers });
    this.usageRecords = new Counter({
      name: "sluice_bridge_usage_records_total",
      help: "Usage records read from the usage topic, by result: counted, duplicate (already counted, skipped), invalid (skipped)",
      labelNames: ["result"],
      registers,
    });
    for (const result of ["counted", "duplicate", "invalid"]) this.usageRecords.inc({ result }, 0);
    this.usageAppsSkipped = new Counter({
      name: "sluice_bridge_usage_apps_skipped_total",
      help: "App entries left out of counted usage records for being malformed (the rest of each record was counted)",
      registers,
    });
    this.usageErrors = new Counter({
      name: "sluice_bridge_usage_errors_total",
      help: "Failed attempts to store a usage record in PostgreSQL (retried)",
      registers,
    });
    this.usageLastInterval = new Gauge({
      name: "sluice_bridge_usage_last_interval_end_timestamp_seconds",
      help: "interval_end of the last usage record counted",
      registers,
    });
    this.usageRetentionDeleted = new Counter({
      name: "sluice_bridge_usage_retention_deleted_rows_total",
      help: "Usage rows deleted past their retention",
      registers,
    });
    collectDefaultMetrics({ register: this.registry, prefix: "sluice_bridge_" });
  }

  recordPublished(count: number): void {
    this.published.inc(count);
    this.lastPublish.set(Date.now() / 1000);
  }
}
