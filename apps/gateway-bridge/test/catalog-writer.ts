// A writer that commits catalog changes continuously, each in one transaction
// with its outbox row as the portal writes it (the entity change, then the
// record built by @sluice/db's builders): endpoints created, updated and
// deleted, apps created and renamed, tokens revoked. It remembers, per key,
// every value it committed in commit order, so a test can check that the topic
// lost nothing and reordered nothing.
import { randomUUID } from "node:crypto";
import assert from "node:assert/strict";
import type pg from "pg";
import { appRecord, endpointRecord, readCatalogRecords, revokedTokenRecord, signingKeyRecord, type CatalogRecord } from "@sluice/db";
import type { TopicRecord } from "../src/catalog-diff.ts";
import { createApi } from "./helpers.ts";

type Api = { id: string; name: string; version: string };

const ENDPOINT_COLUMNS = `id, api_id as "apiId", path, topic, key, key_param as "keyParam", operations, payload_format as "payloadFormat",
  json_schema as "jsonSchema", description, examples, created_at as "createdAt", updated_at as "updatedAt"`;

/** JSON with object keys sorted: jsonb text and JSON.stringify order keys differently. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

export class CatalogWriter {
  /** key → canonical values in commit order ("null" for a tombstone). */
  readonly committed = new Map<string, string[]>();
  count = 0;
  private api: Api | undefined;
  private kid!: string;
  private readonly endpoints: string[] = [];
  private readonly apps: string[] = [];
  private stopped = false;
  private running: Promise<void> | null = null;

  constructor(private readonly pool: pg.Pool) {}

  /** Starts (or resumes) writing one change after another (with `pauseMs` between) until stop(). */
  async start(pauseMs = 5): Promise<void> {
    this.stopped = false;
    if (!this.api) await this.setUp();
    this.running = (async () => {
      while (!this.stopped) {
        await this.step();
        await new Promise((r) => setTimeout(r, pauseMs));
      }
    })();
  }

  private async setUp(): Promise<void> {
    this.api = await createApi(this.pool);
    this.kid = `kid-${randomUUID().slice(0, 8)}`;
    await this.change(async (c) => {
      const { rows } = await c.query(
        `insert into signing_keys (kid, algorithm, public_jwk, private_key_ciphertext) values ($1, 'ES256', $2, 'x')
         returning kid, algorithm, public_jwk as "publicJwk", status`,
        [this.kid, { kty: "EC", crv: "P-256", x: "x", y: "y", kid: this.kid }],
      );
      return [signingKeyRecord(rows[0])];
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  /** One change; the kinds rotate so every kind of key gets several updates. */
  private async step(): Promise<void> {
    const n = this.count;
    const pick = (list: string[]) => list[Math.floor(Math.random() * list.length)];
    switch (n % 6) {
      case 0:
      case 3: {
        if (this.endpoints.length < 8 || n % 12 === 0) {
          const key = `k${n}`;
          await this.change(async (c) => {
            const { rows } = await c.query(
              `insert into endpoints (api_id, path, topic, key, operations) values ($1, $2, 'failover', $3, array['subscribe']) returning ${ENDPOINT_COLUMNS}`,
              [this.api!.id, `/failover/${key}`, key],
            );
            this.endpoints.push(rows[0].id);
            return [endpointRecord(rows[0], this.api!)];
          });
        } else if (n % 18 === 3) {
          const id = this.endpoints.splice(Math.floor(Math.random() * this.endpoints.length), 1)[0]!;
          await this.change(async (c) => {
            await c.query("delete from endpoints where id = $1", [id]);
            return [{ key: `endpoint/${id}`, value: null }];
          });
        } else {
          await this.updateEndpoint(pick(this.endpoints)!, n);
        }
        break;
      }
      case 1:
      case 4:
        if (this.endpoints.length > 0) await this.updateEndpoint(pick(this.endpoints)!, n);
        break;
      case 2: {
        if (this.apps.length < 4) {
          await this.change(async (c) => {
            const { rows } = await c.query(
              `insert into apps (name) values ($1) returning id, name, tokens_not_before as "tokensNotBefore"`,
              [`app ${n}`],
            );
            this.apps.push(rows[0].id);
            return [appRecord(rows[0])];
          });
        } else {
          await this.change(async (c) => {
            const { rows } = await c.query(
              `update apps set name = $2, tokens_not_before = now(), updated_at = now() where id = $1 returning id, name, tokens_not_before as "tokensNotBefore"`,
              [pick(this.apps), `app ${n}`],
            );
            return [appRecord(rows[0])];
          });
        }
        break;
      }
      case 5:
        if (this.apps.length > 0) {
          await this.change(async (c) => {
            const { rows } = await c.query(
              `insert into issued_tokens (app_id, kid, permissions, expires_at, revoked_at)
               values ($1, $2, '{}'::jsonb, now() + interval '1 hour', now() + interval '1 second')
               returning jti, app_id as "appId", expires_at as "expiresAt"`,
              [pick(this.apps), this.kid],
            );
            return [revokedTokenRecord(rows[0])];
          });
        }
        break;
    }
    this.count++;
  }

  private async updateEndpoint(id: string, n: number): Promise<void> {
    await this.change(async (c) => {
      const { rows } = await c.query(
        `update endpoints set description = $2, updated_at = now() where id = $1 returning ${ENDPOINT_COLUMNS}`,
        [id, `change ${n}`],
      );
      return [endpointRecord(rows[0], this.api!)];
    });
  }

  /** The entity change and its outbox rows in one transaction; remembered only once committed. */
  private async change(work: (c: pg.PoolClient) => Promise<CatalogRecord[]>): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query("begin");
      const records = await work(client);
      for (const r of records) {
        await client.query("insert into catalog_outbox (record_key, record_value) values ($1, $2::jsonb)", [
          r.key,
          r.value === null ? null : JSON.stringify(r.value),
        ]);
      }
      await client.query("commit");
      for (const r of records) {
        const list = this.committed.get(r.key) ?? [];
        list.push(canonical(r.value));
        this.committed.set(r.key, list);
      }
    } catch (err) {
      await client.query("rollback").catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }
}

/**
 * Checks the topic against the database and the writer: the last record per
 * key equals the database's current catalog (and no other key is live), and
 * each key's records, with repeats folded, are a subsequence of the values
 * committed for it, in commit order. A takeover may skip values (it publishes
 * the current state, and a compacted topic only promises the last value per
 * key) or repeat one, but never go back to an older one.
 */
export async function assertTopicMatches(pool: pg.Pool, writer: CatalogWriter, records: TopicRecord[]): Promise<void> {
  const client = await pool.connect();
  let current: CatalogRecord[];
  try {
    current = await readCatalogRecords(client);
  } finally {
    client.release();
  }
  const last = new Map<string, string>();
  const perKey = new Map<string, string[]>();
  for (const r of records) {
    const value = canonical(r.value === null ? null : JSON.parse(r.value));
    last.set(r.key, value);
    const seq = perKey.get(r.key) ?? [];
    if (seq.at(-1) !== value) seq.push(value);
    perKey.set(r.key, seq);
  }
  const live = new Map([...last].filter(([, v]) => v !== "null"));
  assert.deepEqual(
    new Map(current.map((r) => [r.key, canonical(r.value)])),
    live,
    "the topic's last record per key is the database's final state",
  );
  for (const [key, seq] of perKey) {
    const committed = writer.committed.get(key);
    assert.ok(committed, `${key} on the topic was never committed`);
    let at = 0;
    for (const value of seq) {
      const found = committed.indexOf(value, at);
      assert.ok(found >= 0, `${key}: a record out of commit order (or never committed): ${value}\ncommitted: ${committed.join("\n")}`);
      at = found;
    }
  }
  for (const [key, values] of writer.committed) {
    // A key created and deleted while no leader published may never reach the topic.
    assert.equal(last.get(key) ?? "null", values.at(-1), `${key}: the topic's last record is the last committed value`);
  }
}
