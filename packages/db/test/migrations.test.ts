// Runs against the real PostgreSQL of the test stack (DATABASE_URL). Each run
// migrates a brand-new database, so it proves the migrations apply to an empty one.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { databaseUrlFromEnv } from "../src/client.ts";
import { CATALOG_OUTBOX_CHANNEL } from "../src/index.ts";
import { migrateDatabase } from "../src/migrate.ts";

const adminUrl = databaseUrlFromEnv();
const dbName = `sluice_migrations_${randomBytes(4).toString("hex")}`;
const testUrl = (() => {
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  return url.toString();
})();

let client: pg.Client;

async function expectViolation(sqlText: string, params: unknown[], constraint: string) {
  await assert.rejects(client.query(sqlText, params), (err: pg.DatabaseError) => {
    assert.equal(err.constraint, constraint, `expected ${constraint}, got ${err.constraint}: ${err.message}`);
    return true;
  });
}

async function insertApi(name = "Fleet"): Promise<string> {
  const { rows } = await client.query("insert into streaming_apis (name, version) values ($1, '1.0.0') returning id", [name]);
  return rows[0].id;
}

const insertEndpointSql = "insert into endpoints (api_id, path, topic, key, key_param, operations) values ($1, $2, $3, $4, $5, $6)";

describe("migrations", () => {
  before(async () => {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database ${dbName}`);
    await admin.end();
    await migrateDatabase({ url: testUrl });
    client = new pg.Client({ connectionString: testUrl });
    await client.connect();
  });

  after(async () => {
    await client?.end();
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  });

  test("create every table of the core model", async () => {
    const { rows } = await client.query("select table_name from information_schema.tables where table_schema = 'public' order by 1");
    assert.deepEqual(
      rows.map((r) => r.table_name),
      [
        "access_request_endpoints",
        "access_requests",
        "account_links",
        "api_keys",
        "app_grants",
        "apps",
        "audit_log",
        "catalog_outbox",
        "endpoints",
        "issued_tokens",
        "login_attempts",
        "plans",
        "sessions",
        "signing_keys",
        "streaming_apis",
        "usage_app_hours",
        "usage_app_minutes",
        "usage_endpoint_hours",
        "usage_endpoint_minutes",
        "usage_intervals",
        "usage_nodes",
        "users",
        "webhook_deliveries",
      ],
    );
  });

  test("are idempotent: a second and third run apply nothing", async () => {
    const count = async () => (await client.query("select count(*)::int as n from drizzle.__drizzle_migrations")).rows[0].n;
    const applied = await count();
    assert.ok(applied >= 2, `expected at least 2 applied migrations, got ${applied}`);
    await migrateDatabase({ url: testUrl });
    await Promise.all([migrateDatabase({ url: testUrl }), migrateDatabase({ url: testUrl })]);
    assert.equal(await count(), applied);
  });

  test("endpoints: valid exact and parameterised endpoints are stored", async () => {
    const apiId = await insertApi("Valid");
    await client.query(insertEndpointSql, [apiId, "/vehicles/1/speed", "vehicles", "1/speed", null, ["subscribe"]]);
    await client.query(insertEndpointSql, [apiId, "/prices/{symbol}", "prices", null, "symbol", ["subscribe", "publish"]]);
    const { rows } = await client.query(
      "select path, topic, key, key_param, operations, payload_format from endpoints where api_id = $1 order by path",
      [apiId],
    );
    assert.deepEqual(rows, [
      {
        path: "/prices/{symbol}",
        topic: "prices",
        key: null,
        key_param: "symbol",
        operations: ["subscribe", "publish"],
        payload_format: "json",
      },
      { path: "/vehicles/1/speed", topic: "vehicles", key: "1/speed", key_param: null, operations: ["subscribe"], payload_format: "json" },
    ]);
  });

  test("endpoints: constraints reject what the gateway could not serve", async () => {
    const apiId = await insertApi("Constraints");
    await client.query(insertEndpointSql, [apiId, "/orders/eu", "orders", "eu", null, ["publish"]]);
    await expectViolation(insertEndpointSql, [apiId, "/orders/eu", "orders", "eu", null, ["publish"]], "endpoints_path_key");
    await expectViolation(insertEndpointSql, [apiId, "/bad topic/x", "bad topic", "x", null, ["subscribe"]], "endpoints_topic_format");
    await expectViolation(insertEndpointSql, [apiId, "/t/x", "t", "x", "p", ["subscribe"]], "endpoints_key_xor_param");
    await expectViolation(insertEndpointSql, [apiId, "/t/x", "t", null, null, ["subscribe"]], "endpoints_key_xor_param");
    await expectViolation(insertEndpointSql, [apiId, "/other/x", "t", "x", null, ["subscribe"]], "endpoints_path_topic");
    await expectViolation(insertEndpointSql, [apiId, "/t/{a}", "t", null, "b", ["subscribe"]], "endpoints_path_param");
    await expectViolation(insertEndpointSql, [apiId, "/t/x", "t", "x", null, ["delete"]], "endpoints_operations_valid");
    await expectViolation(insertEndpointSql, [apiId, "/t/x", "t", "x", null, []], "endpoints_operations_valid");
    await client.query(insertEndpointSql, [apiId, "/ticks/{symbol}", "ticks", null, "symbol", ["subscribe"]]);
    await expectViolation(insertEndpointSql, [apiId, "/ticks/{sym}", "ticks", null, "sym", ["subscribe"]], "endpoints_topic_param_key");
    await expectViolation(
      "insert into endpoints (api_id, path, topic, key, operations, payload_format, json_schema) values ($1, '/t/s', 't', 's', '{subscribe}', 'text', '{}')",
      [apiId],
      "endpoints_schema_is_json_object",
    );
    await expectViolation(
      insertEndpointSql,
      ["00000000-0000-0000-0000-000000000000", "/z/1", "z", "1", null, ["subscribe"]],
      "endpoints_api_id_streaming_apis_id_fk",
    );
  });

  test("endpoints: a value schema exactly for the registry formats", async () => {
    const apiId = await insertApi("Value schema");
    const row = (
      format: string,
      subject: string | null,
      strategy: string | null,
      record: string | null,
      version: number | null,
      key: string,
    ): [string, unknown[]] => [
      "insert into endpoints (api_id, path, topic, key, operations, payload_format, value_subject, value_subject_strategy, value_record_name, value_schema_version) values ($1, '/vs/' || $7, 'vs', $7, '{subscribe}', $2, $3, $4, $5, $6)",
      [apiId, format, subject, strategy, record, version, key],
    ];
    for (const [format, key] of [
      ["avro", "a"],
      ["protobuf", "p"],
      ["json-schema", "j"],
    ] as const)
      await client.query(...row(format, "vs-value", "topic", null, null, key));
    await client.query(...row("avro", "com.acme.Price", "record", "com.acme.Price", 2, "r"));
    await client.query(...row("avro", "vs-com.acme.Price", "topic-record", "com.acme.Price", null, "tr"));
    await expectViolation(...row("avro", null, null, null, null, "x1"), "endpoints_value_subject_registry");
    await expectViolation(...row("json", "vs-value", "topic", null, null, "x2"), "endpoints_value_subject_registry");
    await expectViolation(...row("avro", "", "topic", null, null, "x3"), "endpoints_value_subject_length");
    await expectViolation(...row("avro", "com.acme.Price", "record", null, null, "x4"), "endpoints_value_record_name");
    await expectViolation(...row("avro", "vs-value", "topic", "com.acme.Price", null, "x5"), "endpoints_value_record_name");
    await expectViolation(...row("avro", "vs-value", "topic", null, 0, "x6"), "endpoints_value_schema_version");
  });

  test("endpoints: a key schema for any format, subject and strategy together", async () => {
    const apiId = await insertApi("Key schema");
    const row = (
      format: string,
      subject: string | null,
      strategy: string | null,
      record: string | null,
      version: number | null,
      key: string,
    ): [string, unknown[]] => [
      "insert into endpoints (api_id, path, topic, key, operations, payload_format, value_subject, value_subject_strategy, key_subject, key_subject_strategy, key_record_name, key_schema_version) values ($1, '/ks/' || $7, 'ks', $7, '{subscribe}', $2::payload_format, case when $2::text = 'avro' then 'ks-value' end, case when $2::text = 'avro' then 'topic'::subject_strategy end, $3, $4, $5, $6)",
      [apiId, format, subject, strategy, record, version, key],
    ];
    await client.query(...row("json", null, null, null, null, "plain"));
    for (const [format, key] of [
      ["json", "j"],
      ["text", "t"],
      ["bytes", "b"],
      ["avro", "a"],
    ] as const)
      await client.query(...row(format, "ks-key", "topic", null, null, key));
    await client.query(...row("json", "com.acme.Key", "record", "com.acme.Key", 2, "r"));
    await client.query(...row("text", "ks-com.acme.Key", "topic-record", "com.acme.Key", null, "tr"));
    await expectViolation(...row("json", "ks-key", null, null, null, "x1"), "endpoints_key_subject_strategy");
    await expectViolation(...row("json", null, "topic", null, null, "x2"), "endpoints_key_subject_strategy");
    await expectViolation(...row("json", "", "topic", null, null, "x3"), "endpoints_key_subject_length");
    await expectViolation(...row("json", "com.acme.Key", "record", null, null, "x4"), "endpoints_key_record_name");
    await expectViolation(...row("json", "ks-key", "topic", "com.acme.Key", null, "x5"), "endpoints_key_record_name");
    await expectViolation(...row("json", "ks-key", "topic", null, 0, "x6"), "endpoints_key_schema_version");
    await expectViolation(...row("json", null, null, null, 1, "x7"), "endpoints_key_schema_version");
  });

  test("deleting an API deletes its endpoints", async () => {
    const apiId = await insertApi("Cascade");
    await client.query(insertEndpointSql, [apiId, "/cascade/1", "cascade", "1", null, ["subscribe"]]);
    await client.query("delete from streaming_apis where id = $1", [apiId]);
    const { rows } = await client.query("select count(*)::int as n from endpoints where topic = 'cascade'");
    assert.equal(rows[0].n, 0);
  });

  test("users: e-mail is unique regardless of case, roles are an enum", async () => {
    await client.query("insert into users (email, role) values ('Ada@example.com', 'admin')");
    await expectViolation("insert into users (email) values ('ada@EXAMPLE.com')", [], "users_email_lower_key");
    await expectViolation("insert into users (email) values ('not-an-email')", [], "users_email_format");
    await assert.rejects(
      client.query("insert into users (email, role) values ('b@example.com', 'root')"),
      /invalid input value for enum user_role/,
    );
  });

  test("apps, grants, keys and tokens keep their invariants", async () => {
    const {
      rows: [app],
    } = await client.query("insert into apps (name) values ('dashboard') returning id");
    await client.query("insert into app_grants (app_id, endpoint_pattern, operations) values ($1, '/sensors/*', '{subscribe}')", [app.id]);
    await expectViolation(
      "insert into app_grants (app_id, endpoint_pattern, operations) values ($1, '/sensors/*', '{publish}')",
      [app.id],
      "app_grants_app_pattern_key",
    );
    await expectViolation(
      "insert into app_grants (app_id, endpoint_pattern, operations) values ($1, 'sensors', '{publish}')",
      [app.id],
      "app_grants_pattern_format",
    );

    const keySql =
      "insert into signing_keys (kid, algorithm, public_jwk, private_key_ciphertext) values ($1, 'ES256', '{\"kty\":\"EC\"}', 'v1:opaque')";
    await client.query(keySql, ["k1"]);
    await expectViolation(keySql, ["k2"], "signing_keys_one_active");
    await client.query("update signing_keys set status = 'retired', retired_at = now() where kid = 'k1'");
    await client.query(keySql, ["k2"]);
    await expectViolation("update signing_keys set status = 'retired' where kid = 'k2'", [], "signing_keys_retired_at");

    const tokenSql = "insert into issued_tokens (app_id, kid, permissions, expires_at) values ($1, $2, $3, $4)";
    await client.query(tokenSql, [app.id, "k2", { sub: ["/sensors/*"] }, new Date(Date.now() + 3600_000)]);
    await expectViolation(tokenSql, [app.id, "k2", { sub: [] }, new Date(Date.now() - 1000)], "issued_tokens_lifetime");
    await expectViolation(tokenSql, [app.id, "missing", { sub: [] }, new Date(Date.now() + 1000)], "issued_tokens_kid_signing_keys_kid_fk");
    await expectViolation("delete from signing_keys where kid = 'k2'", [], "issued_tokens_kid_signing_keys_kid_fk");
  });

  test("access requests: every state carries exactly its decision fields", async () => {
    const apiId = await insertApi("Requests");
    const { rows: apps } = await client.query("insert into apps (name) values ('Requester') returning id");
    const appId = apps[0].id;
    const insert = (columns: string, values: string) =>
      `insert into access_requests (app_id, api_id, whole_api, operations, justification${columns}) values ($1, $2, true, $3, $4${values})`;
    const base = [appId, apiId, ["subscribe"], "for the dashboard"];
    await client.query(insert("", ""), base);
    await expectViolation(insert("", ""), [appId, apiId, ["read"], "x"], "access_requests_operations_valid");
    await expectViolation(insert("", ""), [appId, apiId, ["subscribe"], ""], "access_requests_justification_length");
    await expectViolation(insert("", ""), [appId, apiId, ["subscribe"], "x".repeat(501)], "access_requests_justification_length");
    await expectViolation(insert(", decided_at", ", now()"), base, "access_requests_decided");
    await expectViolation(insert(", state", ", 'approved'"), base, "access_requests_decided");
    await expectViolation(insert(", state, decided_at", ", 'rejected', now()"), base, "access_requests_reason");
    await expectViolation(insert(", state, decided_at, reason", ", 'approved', now(), 'fine'"), base, "access_requests_reason");
    await expectViolation(insert(", state, decided_at, reason", ", 'rejected', now(), ''"), base, "access_requests_reason_length");
    await client.query(insert(", state, decided_at, reason", ", 'rejected', now(), 'use the public feed'"), base);
    await client.query(insert(", state, decided_at", ", 'withdrawn', now()"), base);
    await expectViolation(
      insert(", state, decided_at, auto_approved", ", 'withdrawn', now(), true"),
      base,
      "access_requests_auto_approved",
    );
    await client.query(insert(", state, decided_at, auto_approved", ", 'approved', now(), true"), base);
    // Deleting the API deletes its requests.
    await client.query("delete from streaming_apis where id = $1", [apiId]);
    const { rows } = await client.query("select count(*)::int as n from access_requests where app_id = $1", [appId]);
    assert.equal(rows[0].n, 0);
  });

  test("plans: limits are positive up to 2^40 or null, names unique per API whatever the case, a plan in use is kept", async () => {
    const apiId = await insertApi("Planned");
    const insert = "insert into plans (api_id, name, connections, delivered_bytes_per_second) values ($1, $2, $3, $4) returning id";
    const { rows: plans } = await client.query(insert, [apiId, "free", 1, null]);
    await client.query(insert, [apiId, "gold", null, 1099511627776]);
    await expectViolation(insert, [apiId, "FREE", 2, null], "plans_api_name_key");
    await expectViolation(insert, [apiId, "", 2, null], "plans_name_length");
    await expectViolation(insert, [apiId, "x".repeat(41), 2, null], "plans_name_length");
    await expectViolation(insert, [apiId, "zero", 0, null], "plans_connections");
    await expectViolation(insert, [apiId, "huge", null, 1099511627777], "plans_delivered_bytes_per_second");
    const { rows: apps } = await client.query("insert into apps (name) values ('Planned app') returning id");
    await client.query("insert into app_grants (app_id, endpoint_pattern, operations, plan_id) values ($1, '/planned/*', $2, $3)", [
      apps[0].id,
      ["subscribe"],
      plans[0].id,
    ]);
    await expectViolation("delete from plans where id = $1", [plans[0].id], "app_grants_plan_id_plans_id_fk");
    await client.query("update app_grants set plan_id = null where app_id = $1", [apps[0].id]);
    await client.query("delete from streaming_apis where id = $1", [apiId]);
    const { rows } = await client.query("select count(*)::int as n from plans where api_id = $1", [apiId]);
    assert.equal(rows[0].n, 0);
  });

  test("catalog outbox notifies on commit and never on rollback", async () => {
    const listener = new pg.Client({ connectionString: testUrl });
    await listener.connect();
    const received: string[] = [];
    listener.on("notification", (n) => received.push(n.channel));
    await listener.query(`listen ${CATALOG_OUTBOX_CHANNEL}`);
    try {
      await client.query("begin");
      await client.query("insert into catalog_outbox (record_key, record_value) values ('endpoint:/a/b', '{}')");
      await client.query("rollback");
      await client.query("insert into catalog_outbox (record_key, record_value) values ('endpoint:/a/c', null)");
      // A round trip on the listener flushes notifications already sent to it.
      await new Promise((r) => setTimeout(r, 200));
      await listener.query("select 1");
      assert.deepEqual(received, [CATALOG_OUTBOX_CHANNEL]);
      const { rows } = await client.query("select record_key, record_value from catalog_outbox where published_at is null");
      assert.deepEqual(rows, [{ record_key: "endpoint:/a/c", record_value: null }]);
    } finally {
      await listener.end();
    }
  });
});
