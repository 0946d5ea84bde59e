// The cases of packages/protocol/vectors/catalog-records.json, built with the
// record builders of src/catalog-records.ts from fixed rows, so the file is what
// the portal and the bridge really write. Each case is a sequence of records
// applied to an empty catalog and the state a gateway must hold afterwards
// (CATALOG.md); damaged and unknown-version records are derived from the
// builders' output. src/catalog-records.test.ts fails when the file and this
// differ, and rewrites the file with SLUICE_WRITE_VECTORS=1; the gateway's
// internal/catalog/vectors_test.go applies every case.
import { fileURLToPath } from "node:url";
import {
  appLimits,
  appRecord,
  appTombstone,
  endpointRecord,
  endpointTombstone,
  revokedTokenRecord,
  signingKeyRecord,
  signingKeyTombstone,
  type CatalogRecord,
} from "../src/catalog-records.ts";
import type { Endpoint } from "../src/schema.ts";

export const CATALOG_VECTORS_FILE = fileURLToPath(new URL("../../protocol/vectors/catalog-records.json", import.meta.url));

/** A record as a vector holds it: `value_raw` is a value that is not the JSON of any builder (damaged bytes). */
type VectorRecord = CatalogRecord | { key: string; value_raw: string };

interface ExpectedEndpoint {
  id: string;
  path: string;
  topic: string;
  key: string | null;
  key_param: string | null;
  operations: string[];
  payload_format: string;
  json_schema: unknown;
  value_schema: { subject: string; version: number | null } | null;
  key_schema: { subject: string; version: number | null } | null;
  api: { id: string; name: string; version: string };
}

interface ExpectedLimit {
  plan: string;
  patterns: string[];
  connections: number;
  subscriptions_per_connection: number;
  publish_per_second: number;
  delivered_per_second: number;
  delivered_bytes_per_second: number;
}

interface VectorCase {
  name: string;
  records: VectorRecord[];
  /** What the gateway holds after applying the records in order. */
  state: {
    endpoints: ExpectedEndpoint[];
    keys: { kid: string; alg: string; status: string }[];
    /** limits: the app's plans in the record's order (absent: no limits), each limit 0 for none. */
    apps: { id: string; tokens_not_before: number; limits?: ExpectedLimit[] }[];
    revoked: { jti: string; expires_at: number }[];
  };
  /** Records rejected, or (revocations, apps) applied from what could be read. */
  bad_records: number;
  /** Records of kinds the gateway does not know, skipped. */
  ignored_records: number;
  /** Which endpoint serves a (topic, key); null: none (4004). */
  resolves?: { topic: string; key: string; endpoint: string | null }[];
  /** Whether a payload published on the endpoint is accepted (its format and JSON Schema). */
  validates?: { endpoint: string; data: string; ok: boolean }[];
}

/** The gateway's clock in every case, in Unix seconds (a damaged app record revokes up to now). */
export const NOW = 1795100000;

const api = { id: "51a2c6a4-0d7e-4d3b-9a53-2f1e8c0b7a10", name: "Market data", version: "1.0.0" };
const at = (seconds: number) => new Date(seconds * 1000);

function endpoint(
  fields: Pick<Endpoint, "id" | "path" | "topic" | "key" | "keyParam" | "operations" | "payloadFormat"> &
    Partial<
      Pick<
        Endpoint,
        | "valueSubject"
        | "valueSubjectStrategy"
        | "valueRecordName"
        | "valueSchemaVersion"
        | "keySubject"
        | "keySubjectStrategy"
        | "keyRecordName"
        | "keySchemaVersion"
      >
    > & { jsonSchema?: unknown },
): Endpoint {
  return {
    apiId: api.id,
    jsonSchema: null,
    valueSubject: null,
    valueSubjectStrategy: null,
    valueRecordName: null,
    valueSchemaVersion: null,
    keySubject: null,
    keySubjectStrategy: null,
    keyRecordName: null,
    keySchemaVersion: null,
    description: "",
    examples: [],
    createdAt: at(NOW),
    updatedAt: at(NOW),
    ...fields,
  };
}

const prices = endpoint({
  id: "8c0e3f52-7a4b-4c1d-b0e9-5d6f7a8b9c01",
  path: "/prices/{symbol}",
  topic: "prices",
  key: null,
  keyParam: "symbol",
  operations: ["subscribe", "publish"],
  payloadFormat: "json",
  jsonSchema: { type: "object", required: ["price"], properties: { price: { type: "number", minimum: 0 } } },
});
const alerts = endpoint({
  id: "8c0e3f52-7a4b-4c1d-b0e9-5d6f7a8b9c02",
  path: "/alerts/eu/north",
  topic: "alerts",
  key: "eu/north",
  keyParam: null,
  operations: ["subscribe"],
  payloadFormat: "text",
});
const news = endpoint({
  id: "8c0e3f52-7a4b-4c1d-b0e9-5d6f7a8b9c03",
  path: "/news/caf%C3%A9",
  topic: "news",
  key: "café",
  keyParam: null,
  operations: ["subscribe", "publish"],
  payloadFormat: "json",
});
const telemetry = endpoint({
  id: "8c0e3f52-7a4b-4c1d-b0e9-5d6f7a8b9c04",
  path: "/telemetry/{device}",
  topic: "telemetry",
  key: null,
  keyParam: "device",
  operations: ["publish"],
  payloadFormat: "bytes",
});
// Avro values and Avro keys, both by TopicNameStrategy, latest versions: the key
// in the path is the decoded key's JSON text (a string key is itself).
const orders = endpoint({
  id: "8c0e3f52-7a4b-4c1d-b0e9-5d6f7a8b9c05",
  path: "/orders/{customer}",
  topic: "orders",
  key: null,
  keyParam: "customer",
  operations: ["subscribe", "publish"],
  payloadFormat: "avro",
  valueSubject: "orders-value",
  valueSubjectStrategy: "topic",
  valueSchemaVersion: null,
  keySubject: "orders-key",
  keySubjectStrategy: "topic",
  keySchemaVersion: null,
});
// A JSON-valued topic whose keys are registry-encoded records, pinned to key
// schema version 2 by RecordNameStrategy; the exact key is the record's compact JSON.
const carts = endpoint({
  id: "8c0e3f52-7a4b-4c1d-b0e9-5d6f7a8b9c06",
  path: "/carts/%7B%22shop%22%3A%22eu%22%2C%22id%22%3A7%7D",
  topic: "carts",
  key: '{"shop":"eu","id":7}',
  keyParam: null,
  operations: ["subscribe"],
  payloadFormat: "json",
  keySubject: "com.acme.CartKey",
  keySubjectStrategy: "record",
  keyRecordName: "com.acme.CartKey",
  keySchemaVersion: 2,
});

const es256 = {
  kid: "2026-11-22-vectors1",
  algorithm: "ES256",
  publicJwk: {
    kty: "EC",
    crv: "P-256",
    x: "XL6XIUIUVl4iei1uTTYSSdcKyx0EmU4TE9MYul7VCwg",
    y: "QEQSa66mlGYIw2RERjqmDhcyq8Ue07-kbInTfJoLhus",
  },
  status: "active" as const,
};
const eddsa = {
  kid: "2026-11-01-vectors2",
  algorithm: "EdDSA",
  publicJwk: { kty: "OKP", crv: "Ed25519", x: "EpOH5lab3DxOrW8MEwUg-LjMGB0SRdtkfg5Om79MQIU" },
  status: "retired" as const,
};

const dashboard = { id: "5d1f0c2e-3b4a-4e6f-8a9b-0c1d2e3f4a01", name: "Dashboard", tokensNotBefore: null };
// Two plans of one API, given out of order: the record lists gold (no connection limit) before free.
const freePlan = {
  id: "0c2e4b1a-7d3f-4c5e-9a8b-1f2e3d4c5b01",
  name: "free",
  connections: 1,
  subscriptionsPerConnection: 10,
  publishPerSecond: 5,
  deliveredPerSecond: 100,
  deliveredBytesPerSecond: null,
};
const goldPlan = {
  id: "0c2e4b1a-7d3f-4c5e-9a8b-1f2e3d4c5b02",
  name: "gold",
  connections: null,
  subscriptionsPerConnection: null,
  publishPerSecond: 1000,
  deliveredPerSecond: null,
  deliveredBytesPerSecond: 1048576,
};
const dashboardLimits = appLimits([
  { pattern: "/prices/*", plan: freePlan },
  { pattern: "/orders/eu", plan: goldPlan },
  { pattern: "/orders/us", plan: goldPlan },
]);
/** A limit as the gateway holds it: 0 is none. */
const held = (plan: typeof freePlan | typeof goldPlan, patterns: string[]): ExpectedLimit => ({
  plan: plan.id,
  patterns,
  connections: plan.connections ?? 0,
  subscriptions_per_connection: plan.subscriptionsPerConnection ?? 0,
  publish_per_second: plan.publishPerSecond ?? 0,
  delivered_per_second: plan.deliveredPerSecond ?? 0,
  delivered_bytes_per_second: plan.deliveredBytesPerSecond ?? 0,
});
const revokedToken = { jti: "0b6c1d2e-3f4a-4b5c-8d6e-7f8091a2b301", appId: dashboard.id, expiresAt: at(NOW + 3600) };

const expected = (e: Endpoint): ExpectedEndpoint => ({
  id: e.id,
  path: e.path,
  topic: e.topic,
  key: e.key,
  key_param: e.keyParam,
  operations: e.operations,
  payload_format: e.payloadFormat,
  json_schema: e.jsonSchema ?? null,
  value_schema: e.valueSubject ? { subject: e.valueSubject, version: e.valueSchemaVersion } : null,
  key_schema: e.keySubject ? { subject: e.keySubject, version: e.keySchemaVersion } : null,
  api,
});

const empty = { endpoints: [], keys: [], apps: [], revoked: [] };
const ok = { bad_records: 0, ignored_records: 0 };
const withVersion = (r: CatalogRecord, v: number): CatalogRecord => ({ key: r.key, value: { ...r.value, v } });

export function catalogVectors() {
  const cases: VectorCase[] = [
    {
      name: "endpoint: parameterised, json with a JSON Schema",
      records: [endpointRecord(prices, api)],
      state: { ...empty, endpoints: [expected(prices)] },
      ...ok,
      resolves: [
        { topic: "prices", key: "AAPL", endpoint: prices.id },
        { topic: "prices", key: "a/b", endpoint: prices.id },
        { topic: "other", key: "AAPL", endpoint: null },
      ],
      validates: [
        { endpoint: prices.id, data: '{"price":1.5}', ok: true },
        { endpoint: prices.id, data: "{}", ok: false },
        { endpoint: prices.id, data: '{"price":-1}', ok: false },
        { endpoint: prices.id, data: "not json", ok: false },
      ],
    },
    {
      name: "endpoint: exact key with a slash, text",
      records: [endpointRecord(alerts, api)],
      state: { ...empty, endpoints: [expected(alerts)] },
      ...ok,
      resolves: [
        { topic: "alerts", key: "eu/north", endpoint: alerts.id },
        { topic: "alerts", key: "eu/south", endpoint: null },
      ],
      validates: [{ endpoint: alerts.id, data: "not json, just text", ok: true }],
    },
    {
      name: "endpoint: exact key whose path is percent-encoded, json without a schema",
      records: [endpointRecord(news, api)],
      state: { ...empty, endpoints: [expected(news)] },
      ...ok,
      resolves: [{ topic: "news", key: "café", endpoint: news.id }],
      validates: [
        { endpoint: news.id, data: '{"any":"json"}', ok: true },
        { endpoint: news.id, data: "{", ok: false },
      ],
    },
    {
      name: "endpoint: parameterised, bytes, publish only",
      records: [endpointRecord(telemetry, api)],
      state: { ...empty, endpoints: [expected(telemetry)] },
      ...ok,
      validates: [{ endpoint: telemetry.id, data: "anything at all", ok: true }],
    },
    {
      name: "endpoint: avro value, avro key",
      records: [endpointRecord(orders, api)],
      state: { ...empty, endpoints: [expected(orders)] },
      ...ok,
      resolves: [{ topic: "orders", key: "c1", endpoint: orders.id }],
    },
    {
      name: "endpoint: json value, a record key pinned to key schema version 2",
      records: [endpointRecord(carts, api)],
      state: { ...empty, endpoints: [expected(carts)] },
      ...ok,
      resolves: [
        { topic: "carts", key: '{"shop":"eu","id":7}', endpoint: carts.id },
        { topic: "carts", key: '{"id":7,"shop":"eu"}', endpoint: null },
      ],
      validates: [{ endpoint: carts.id, data: '{"items":3}', ok: true }],
    },
    {
      name: "endpoint: a changed path is a new record under the same key",
      records: [endpointRecord(alerts, api), endpointRecord({ ...alerts, path: "/alerts/eu/south", key: "eu/south" }, api)],
      state: { ...empty, endpoints: [{ ...expected(alerts), path: "/alerts/eu/south", key: "eu/south" }] },
      ...ok,
      resolves: [
        { topic: "alerts", key: "eu/north", endpoint: null },
        { topic: "alerts", key: "eu/south", endpoint: alerts.id },
      ],
    },
    {
      name: "endpoint: a tombstone removes it",
      records: [endpointRecord(prices, api), endpointTombstone(prices.id)],
      state: empty,
      ...ok,
      resolves: [{ topic: "prices", key: "AAPL", endpoint: null }],
    },
    {
      name: "endpoint: an unknown version keeps the previous state",
      records: [endpointRecord(alerts, api), withVersion(endpointRecord({ ...alerts, path: "/alerts/eu/south", key: "eu/south" }, api), 2)],
      state: { ...empty, endpoints: [expected(alerts)] },
      bad_records: 1,
      ignored_records: 0,
    },
    {
      name: "endpoint: a value that is not JSON keeps the previous state",
      records: [endpointRecord(alerts, api), { key: `endpoint/${alerts.id}`, value_raw: '{"v":1,"id":' }],
      state: { ...empty, endpoints: [expected(alerts)] },
      bad_records: 1,
      ignored_records: 0,
    },
    {
      name: "key: an active ES256 key",
      records: [signingKeyRecord(es256)],
      state: { ...empty, keys: [{ kid: es256.kid, alg: "ES256", status: "active" }] },
      ...ok,
    },
    {
      name: "key: a retired EdDSA key still verifies",
      records: [signingKeyRecord(eddsa)],
      state: { ...empty, keys: [{ kid: eddsa.kid, alg: "EdDSA", status: "retired" }] },
      ...ok,
    },
    {
      name: "key: rotation retires the old key, a tombstone removes it once its tokens expired",
      records: [
        signingKeyRecord({ ...es256, status: "active" }),
        signingKeyRecord({ ...es256, status: "retired" }),
        signingKeyRecord({ ...eddsa, status: "active" }),
        signingKeyTombstone(es256.kid),
      ],
      state: { ...empty, keys: [{ kid: eddsa.kid, alg: "EdDSA", status: "active" }] },
      ...ok,
    },
    {
      name: "key: an unknown version is not a key",
      records: [withVersion(signingKeyRecord(es256), 2)],
      state: empty,
      bad_records: 1,
      ignored_records: 0,
    },
    {
      name: "app: without tokens_not_before",
      records: [appRecord(dashboard)],
      state: { ...empty, apps: [{ id: dashboard.id, tokens_not_before: 0 }] },
      ...ok,
    },
    {
      name: "app: revoke every token (tokens_not_before)",
      records: [appRecord(dashboard), appRecord({ ...dashboard, tokensNotBefore: at(NOW - 60) })],
      state: { ...empty, apps: [{ id: dashboard.id, tokens_not_before: NOW - 60 }] },
      ...ok,
    },
    {
      name: "app: with two plans, the more generous first",
      records: [appRecord(dashboard, dashboardLimits)],
      state: {
        ...empty,
        apps: [
          {
            id: dashboard.id,
            tokens_not_before: 0,
            limits: [held(goldPlan, ["/orders/eu", "/orders/us"]), held(freePlan, ["/prices/*"])],
          },
        ],
      },
      ...ok,
    },
    {
      name: "app: a record without limits lifts the plans it had",
      records: [appRecord(dashboard, dashboardLimits), appRecord(dashboard)],
      state: { ...empty, apps: [{ id: dashboard.id, tokens_not_before: 0, limits: [] }] },
      ...ok,
    },
    {
      name: "app: a tombstone removes it (and so revokes its tokens)",
      records: [appRecord(dashboard), appTombstone(dashboard.id)],
      state: empty,
      ...ok,
    },
    {
      name: "app: an unknown version of a known app revokes its tokens issued before now",
      records: [appRecord(dashboard), withVersion(appRecord(dashboard), 2)],
      state: { ...empty, apps: [{ id: dashboard.id, tokens_not_before: NOW }] },
      bad_records: 1,
      ignored_records: 0,
    },
    {
      name: "app: an unknown version of an unknown app leaves it unknown",
      records: [withVersion(appRecord(dashboard), 2)],
      state: empty,
      bad_records: 1,
      ignored_records: 0,
    },
    {
      name: "revoked: a revoked token",
      records: [revokedTokenRecord(revokedToken)],
      state: { ...empty, revoked: [{ jti: revokedToken.jti, expires_at: NOW + 3600 }] },
      ...ok,
    },
    {
      name: "revoked: a tombstone once the token has expired",
      records: [revokedTokenRecord(revokedToken), { key: `revoked/${revokedToken.jti}`, value: null }],
      state: empty,
      ...ok,
    },
    {
      name: "revoked: an unknown version still revokes the jti of the key",
      records: [withVersion(revokedTokenRecord(revokedToken), 2)],
      state: { ...empty, revoked: [{ jti: revokedToken.jti, expires_at: 0 }] },
      bad_records: 1,
      ignored_records: 0,
    },
    {
      name: "revoked: a value that is not JSON still revokes the jti of the key",
      records: [{ key: `revoked/${revokedToken.jti}`, value_raw: "garbage" }],
      state: { ...empty, revoked: [{ jti: revokedToken.jti, expires_at: 0 }] },
      bad_records: 1,
      ignored_records: 0,
    },
    {
      name: "an unknown kind is ignored",
      records: [{ key: `quota/${dashboard.id}`, value: { v: 1, app: dashboard.id, per_second: 10 } }],
      state: empty,
      bad_records: 0,
      ignored_records: 1,
    },
  ];
  return {
    description:
      "Records of the catalog topic (CATALOG.md) as @sluice/db's record builders write them, and the state a gateway holds after applying each case's records in order to an empty catalog. " +
      "A record has key and value (a JSON object; null is a tombstone) or value_raw (the exact bytes of a damaged value). now is the gateway's clock in Unix seconds. " +
      "Generated by packages/db/test-support/catalog-vectors.ts (SLUICE_WRITE_VECTORS=1 pnpm --filter @sluice/db test); do not edit.",
    now: NOW,
    cases,
  };
}
