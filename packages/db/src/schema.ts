// The core data model of Sluice. Tables are camelCase here and snake_case in SQL.
// Rules that protect the catalog (unique paths, valid topic names, allowed
// operations, token lifetimes) live in the database as constraints, so no code
// path (portal, API, a manual SQL session) can store a catalog the gateway
// would have to reject.
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";

export const userRole = pgEnum("user_role", ["admin", "editor", "viewer"]);
export const payloadFormat = pgEnum("payload_format", ["json", "text", "bytes", "avro", "protobuf", "json-schema"]);
/** The payload formats whose records carry the Confluent wire format, decoded with a schema registry. */
export const REGISTRY_FORMATS = ["avro", "protobuf", "json-schema"] as const;
/**
 * How an endpoint's value subject is named (the registry's subject name
 * strategies): `topic` is `<topic>-value` (TopicNameStrategy), `record` the
 * record's full name (RecordNameStrategy), `topic-record` `<topic>-<record>`
 * (TopicRecordNameStrategy).
 */
export const SUBJECT_STRATEGIES = ["topic", "record", "topic-record"] as const;
export type SubjectStrategy = (typeof SUBJECT_STRATEGIES)[number];
export const subjectStrategy = pgEnum("subject_strategy", SUBJECT_STRATEGIES);
export const signingKeyStatus = pgEnum("signing_key_status", ["active", "retired"]);
export const accountLinkPurpose = pgEnum("account_link_purpose", ["first_admin", "invite", "password_reset"]);
/**
 * `standard`: an app that users create and grant. `console`: the one app the
 * portal's live console mints its short-lived, single-endpoint tokens for; it
 * has no grants and no other tokens.
 */
export const appKind = pgEnum("app_kind", ["standard", "console"]);
/** pending until a decider approves or rejects it, or the requester withdraws it; every other state is final. */
export const ACCESS_REQUEST_STATES = ["pending", "approved", "rejected", "withdrawn"] as const;
export type AccessRequestState = (typeof ACCESS_REQUEST_STATES)[number];
export const accessRequestState = pgEnum("access_request_state", ACCESS_REQUEST_STATES);

/** The operations an endpoint allows and a grant or token permits. */
export const OPERATIONS = ["subscribe", "publish"] as const;
export type Operation = (typeof OPERATIONS)[number];

const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();
const updatedAt = () => timestamp("updated_at", { withTimezone: true }).notNull().defaultNow();

/** SQL check: a non-empty text[] whose items are all subscribe/publish. */
const operationsCheck = (column: string) => sql.raw(`cardinality(${column}) > 0 and ${column} <@ array['subscribe','publish']::text[]`);

export const users = pgTable(
  "users",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    email: text("email").notNull(),
    displayName: text("display_name").notNull().default(""),
    // Null until the user completes the one-time setup link.
    passwordHash: text("password_hash"),
    role: userRole("role").notNull().default("viewer"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    lastLoginAt: timestamp("last_login_at", { withTimezone: true }),
    /** The sign-in before the last one: what the user is shown as "last signed in" (the last one is the current session's). */
    previousLoginAt: timestamp("previous_login_at", { withTimezone: true }),
    /** When the user dismissed the home page's getting-started checklist; null while it is shown. */
    checklistDismissedAt: timestamp("checklist_dismissed_at", { withTimezone: true }),
    disabledAt: timestamp("disabled_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("users_email_lower_key").on(sql`lower(${t.email})`),
    check("users_email_format", sql`${t.email} ~ '^[^@[:space:]]+@[^@[:space:]]+$'`),
  ],
);

export const streamingApis = pgTable(
  "streaming_apis",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    name: text("name").notNull(),
    version: text("version").notNull(),
    description: text("description").notNull().default(""),
    tags: text("tags").array().notNull().default(sql`'{}'::text[]`),
    ownerId: uuid("owner_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique("streaming_apis_name_version_key").on(t.name, t.version),
    check("streaming_apis_name_length", sql`char_length(${t.name}) between 1 and 100`),
    check("streaming_apis_version_format", sql`${t.version} ~ '^[A-Za-z0-9][A-Za-z0-9._+-]{0,49}$'`),
    index("streaming_apis_tags_idx").using("gin", t.tags),
  ],
);

/**
 * An endpoint is `/{topic}/{key}`: the first path segment is the Kafka topic, the
 * rest is the record key. Exactly one of `key` (an exact key) and `keyParam` (a
 * parameter such as `symbol` in `/prices/{symbol}`, covering every key) is set.
 */
export const endpoints = pgTable(
  "endpoints",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    apiId: uuid("api_id")
      .notNull()
      .references(() => streamingApis.id, { onDelete: "cascade" }),
    path: text("path").notNull(),
    topic: text("topic").notNull(),
    key: text("key"),
    keyParam: text("key_param"),
    operations: text("operations").array().notNull(),
    payloadFormat: payloadFormat("payload_format").notNull().default("json"),
    jsonSchema: jsonb("json_schema"),
    // The value schema of a registry format (all four set or all null, see the
    // checks): the subject is stored as computed from strategy, topic and record
    // name, so the catalog and the gateway never recompute it.
    valueSubject: text("value_subject"),
    valueSubjectStrategy: subjectStrategy("value_subject_strategy"),
    valueRecordName: text("value_record_name"),
    /** The subject version publishes are encoded with; null is the latest. */
    valueSchemaVersion: integer("value_schema_version"),
    // The key schema, for any payload format (all null: plain keys): record keys
    // written by a registry serializer, which the gateway decodes and encodes
    // with this subject. Stored as computed, like the value subject.
    keySubject: text("key_subject"),
    keySubjectStrategy: subjectStrategy("key_subject_strategy"),
    keyRecordName: text("key_record_name"),
    /** The key subject version path keys are encoded with; null is the latest. */
    keySchemaVersion: integer("key_schema_version"),
    description: text("description").notNull().default(""),
    examples: jsonb("examples").notNull().default(sql`'[]'::jsonb`),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique("endpoints_path_key").on(t.path),
    // Two parameterised endpoints on one topic would both claim every key.
    uniqueIndex("endpoints_topic_param_key").on(t.topic).where(sql`${t.keyParam} is not null`),
    uniqueIndex("endpoints_topic_key_key").on(t.topic, t.key).where(sql`${t.key} is not null`),
    index("endpoints_api_id_idx").on(t.apiId),
    // Kafka's own rule for topic names.
    check("endpoints_topic_format", sql`${t.topic} ~ '^[A-Za-z0-9._-]{1,249}$' and ${t.topic} not in ('.', '..')`),
    check("endpoints_key_xor_param", sql`(${t.key} is null) <> (${t.keyParam} is null)`),
    check("endpoints_key_not_empty", sql`${t.key} is null or char_length(${t.key}) between 1 and 1024`),
    check("endpoints_key_param_format", sql`${t.keyParam} is null or ${t.keyParam} ~ '^[A-Za-z_][A-Za-z0-9_]{0,63}$'`),
    check("endpoints_path_topic", sql`starts_with(${t.path}, '/' || ${t.topic} || '/')`),
    check("endpoints_path_param", sql`${t.keyParam} is null or ${t.path} = '/' || ${t.topic} || '/{' || ${t.keyParam} || '}'`),
    check("endpoints_operations_valid", operationsCheck("operations")),
    check(
      "endpoints_schema_is_json_object",
      sql`${t.jsonSchema} is null or (jsonb_typeof(${t.jsonSchema}) = 'object' and ${t.payloadFormat} = 'json')`,
    ),
    check("endpoints_examples_array", sql`jsonb_typeof(${t.examples}) = 'array'`),
    // Compared as text: an enum value added by a migration cannot be used in the transaction that adds it.
    check(
      "endpoints_value_subject_registry",
      sql`(${t.payloadFormat}::text in ('avro', 'protobuf', 'json-schema')) = (${t.valueSubject} is not null and ${t.valueSubjectStrategy} is not null)`,
    ),
    check("endpoints_value_subject_length", sql`${t.valueSubject} is null or char_length(${t.valueSubject}) between 1 and 255`),
    check(
      "endpoints_value_record_name",
      sql`(${t.valueSubjectStrategy} is not null and ${t.valueSubjectStrategy}::text <> 'topic') = (${t.valueRecordName} is not null)`,
    ),
    check(
      "endpoints_value_schema_version",
      sql`${t.valueSchemaVersion} is null or (${t.valueSchemaVersion} > 0 and ${t.valueSubject} is not null)`,
    ),
    // The key schema is optional for every format: subject and strategy are set together.
    check("endpoints_key_subject_strategy", sql`(${t.keySubject} is null) = (${t.keySubjectStrategy} is null)`),
    check("endpoints_key_subject_length", sql`${t.keySubject} is null or char_length(${t.keySubject}) between 1 and 255`),
    check(
      "endpoints_key_record_name",
      sql`(${t.keySubjectStrategy} is not null and ${t.keySubjectStrategy}::text <> 'topic') = (${t.keyRecordName} is not null)`,
    ),
    check(
      "endpoints_key_schema_version",
      sql`${t.keySchemaVersion} is null or (${t.keySchemaVersion} > 0 and ${t.keySubject} is not null)`,
    ),
  ],
);

export const apps = pgTable(
  "apps",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    ownerId: uuid("owner_id").references(() => users.id, { onDelete: "set null" }),
    // "Revoke every token of this app": tokens issued before this instant are rejected.
    tokensNotBefore: timestamp("tokens_not_before", { withTimezone: true }),
    kind: appKind("kind").notNull().default("standard"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique("apps_owner_name_key").on(t.ownerId, t.name),
    uniqueIndex("apps_one_console").on(t.kind).where(sql`${t.kind} = 'console'`),
    check("apps_name_length", sql`char_length(${t.name}) between 1 and 100`),
  ],
);

/** The largest limit a plan may set, as the gateway reads it (CATALOG.md, app records). */
export const MAX_PLAN_LIMIT = 1_099_511_627_776; // 2^40
/** A plan's limits in the order "most generous" compares them (catalog-records.ts, appLimits). */
export const PLAN_LIMITS = [
  "connections",
  "subscriptionsPerConnection",
  "publishPerSecond",
  "deliveredPerSecond",
  "deliveredBytesPerSecond",
] as const;
export type PlanLimit = (typeof PLAN_LIMITS)[number];

/** SQL check: a limit is null (none) or a positive integer the gateway accepts. */
const limitCheck = (column: string) => sql.raw(`${column} is null or ${column} between 1 and ${MAX_PLAN_LIMIT}`);
const limit = (name: string) => bigint(name, { mode: "number" });

/**
 * A plan of an API (issue 17 item 2): limits on what one app does on the
 * endpoints its grants under the plan cover; null is no limit. Grants and
 * access requests name a plan; the gateways get each app's plans in its
 * catalog record (`limits`). `autoApprove`: an access request for this plan is
 * approved as it is made.
 */
export const plans = pgTable(
  "plans",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    apiId: uuid("api_id")
      .notNull()
      .references(() => streamingApis.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    connections: limit("connections"),
    subscriptionsPerConnection: limit("subscriptions_per_connection"),
    publishPerSecond: limit("publish_per_second"),
    deliveredPerSecond: limit("delivered_per_second"),
    deliveredBytesPerSecond: limit("delivered_bytes_per_second"),
    autoApprove: boolean("auto_approve").notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // "Free" and "free" on one API would be told apart only by case in every list.
    uniqueIndex("plans_api_name_key").on(t.apiId, sql`lower(${t.name})`),
    check("plans_name_length", sql`char_length(${t.name}) between 1 and 40`),
    check("plans_description_length", sql`char_length(${t.description}) <= 500`),
    check("plans_connections", limitCheck("connections")),
    check("plans_subscriptions_per_connection", limitCheck("subscriptions_per_connection")),
    check("plans_publish_per_second", limitCheck("publish_per_second")),
    check("plans_delivered_per_second", limitCheck("delivered_per_second")),
    check("plans_delivered_bytes_per_second", limitCheck("delivered_bytes_per_second")),
  ],
);

/**
 * What an app may do: an exact endpoint or a wildcard pattern such as `/sensors/*`,
 * optionally under a plan of the API whose endpoints the pattern reaches. A plan
 * in use cannot be deleted (restrict): deleting it would lift the app's limits
 * unnoticed; deleting its API first takes the plan off its grants.
 */
export const appGrants = pgTable(
  "app_grants",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    appId: uuid("app_id")
      .notNull()
      .references(() => apps.id, { onDelete: "cascade" }),
    endpointPattern: text("endpoint_pattern").notNull(),
    operations: text("operations").array().notNull(),
    grantedBy: uuid("granted_by").references(() => users.id, { onDelete: "set null" }),
    planId: uuid("plan_id").references(() => plans.id, { onDelete: "restrict" }),
    createdAt: createdAt(),
  },
  (t) => [
    index("app_grants_plan_idx").on(t.planId),
    unique("app_grants_app_pattern_key").on(t.appId, t.endpointPattern),
    check("app_grants_pattern_format", sql`${t.endpointPattern} ~ '^/[^/[:space:]]+(/.*)?$' and char_length(${t.endpointPattern}) <= 1024`),
    check("app_grants_operations_valid", operationsCheck("operations")),
  ],
);

/**
 * An app owner's request for access to an API: the whole API (`wholeApi`, the
 * endpoints it has when approved) or the endpoints listed in
 * access_request_endpoints, with operations. Approving creates the app's grants
 * in the same transaction. A decided request is final: the checks tie every
 * state to its decision fields, so no code path can store a half-decided row.
 * The plan asked for (required by the portal when the API has plans) goes to
 * the grants the approval creates; a decided request whose plan was deleted
 * keeps its history in the audit log (set null).
 */
export const accessRequests = pgTable(
  "access_requests",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    appId: uuid("app_id")
      .notNull()
      .references(() => apps.id, { onDelete: "cascade" }),
    apiId: uuid("api_id")
      .notNull()
      .references(() => streamingApis.id, { onDelete: "cascade" }),
    wholeApi: boolean("whole_api").notNull(),
    operations: text("operations").array().notNull(),
    justification: text("justification").notNull(),
    planId: uuid("plan_id").references(() => plans.id, { onDelete: "set null" }),
    state: accessRequestState("state").notNull().default("pending"),
    requestedBy: uuid("requested_by").references(() => users.id, { onDelete: "set null" }),
    requestedAt: timestamp("requested_at", { withTimezone: true }).notNull().defaultNow(),
    /** Approved by the portal itself as it was made (its plan auto-approves): no decider. */
    autoApproved: boolean("auto_approved").notNull().default(false),
    // Who approved, rejected or withdrew it, and when (null while pending).
    decidedBy: uuid("decided_by").references(() => users.id, { onDelete: "set null" }),
    decidedAt: timestamp("decided_at", { withTimezone: true }),
    /** Why it was rejected; only a rejection has (and needs) one. */
    reason: text("reason"),
  },
  (t) => [
    index("access_requests_app_idx").on(t.appId, t.requestedAt.desc()),
    index("access_requests_api_state_idx").on(t.apiId, t.state),
    check("access_requests_operations_valid", operationsCheck("operations")),
    check("access_requests_justification_length", sql`char_length(${t.justification}) between 1 and 500`),
    check("access_requests_decided", sql`(${t.state} = 'pending') = (${t.decidedAt} is null)`),
    check("access_requests_reason", sql`(${t.state} = 'rejected') = (${t.reason} is not null)`),
    check("access_requests_auto_approved", sql`not ${t.autoApproved} or (${t.state} = 'approved' and ${t.decidedBy} is null)`),
    check("access_requests_reason_length", sql`${t.reason} is null or char_length(${t.reason}) between 1 and 500`),
  ],
);

/** The endpoints an endpoint-level access request names (none for a whole-API request). */
export const accessRequestEndpoints = pgTable(
  "access_request_endpoints",
  {
    requestId: uuid("request_id")
      .notNull()
      .references(() => accessRequests.id, { onDelete: "cascade" }),
    endpointId: uuid("endpoint_id")
      .notNull()
      .references(() => endpoints.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.requestId, t.endpointId] }), index("access_request_endpoints_endpoint_idx").on(t.endpointId)],
);

/** A webhook delivery waits (pending, also between retries), arrived (delivered), or ran out of attempts (failed). */
export const WEBHOOK_DELIVERY_STATES = ["pending", "delivered", "failed"] as const;
export type WebhookDeliveryState = (typeof WEBHOOK_DELIVERY_STATES)[number];
export const webhookDeliveryState = pgEnum("webhook_delivery_state", WEBHOOK_DELIVERY_STATES);

/**
 * Outgoing webhook calls (access requests and their decisions), written in the
 * transaction of the change they report, so a committed change always gets its
 * call and a rolled-back one never does. The portal's delivery loop posts each
 * (HMAC-signed), retries with backoff until `nextAttemptAt`, and keeps the
 * outcome here as the delivery log. The URL is the one configured when the
 * event happened; the secret is never stored.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    event: text("event").notNull(),
    url: text("url").notNull(),
    payload: jsonb("payload").notNull(),
    state: webhookDeliveryState("state").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    /** When the loop may (re)try it; while an attempt runs, the end of that attempt's lease. */
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    lastAttemptAt: timestamp("last_attempt_at", { withTimezone: true }),
    /** The HTTP status of the last attempt, null when it got no response. */
    lastStatus: integer("last_status"),
    lastError: text("last_error"),
    createdAt: createdAt(),
    deliveredAt: timestamp("delivered_at", { withTimezone: true }),
  },
  (t) => [
    index("webhook_deliveries_due_idx").on(t.nextAttemptAt).where(sql`${t.state} = 'pending'`),
    index("webhook_deliveries_created_idx").on(t.createdAt.desc()),
    check("webhook_deliveries_event_format", sql`${t.event} ~ '^[a-z_]+\\.[a-z_]+$'`),
    check("webhook_deliveries_url_http", sql`${t.url} ~ '^https?://'`),
    check("webhook_deliveries_payload_object", sql`jsonb_typeof(${t.payload}) = 'object'`),
    check("webhook_deliveries_attempts", sql`${t.attempts} >= 0`),
    check("webhook_deliveries_delivered", sql`(${t.state} = 'delivered') = (${t.deliveredAt} is not null)`),
  ],
);

/**
 * Signing keys for tokens. The private key is stored only encrypted (AES-256-GCM
 * under a key from the environment). At most one key is active; retired keys stay
 * in the JWKS and the catalog until the last token they signed has expired
 * (catalog-membership.ts), and `expiredAt` records when the portal then
 * tombstoned the key in the catalog, so it does that once.
 */
export const signingKeys = pgTable(
  "signing_keys",
  {
    kid: text("kid").primaryKey(),
    algorithm: text("algorithm").notNull(),
    publicJwk: jsonb("public_jwk").notNull(),
    privateKeyCiphertext: text("private_key_ciphertext").notNull(),
    status: signingKeyStatus("status").notNull().default("active"),
    createdAt: createdAt(),
    retiredAt: timestamp("retired_at", { withTimezone: true }),
    expiredAt: timestamp("expired_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("signing_keys_one_active").on(t.status).where(sql`${t.status} = 'active'`),
    check("signing_keys_expired_at", sql`${t.expiredAt} is null or ${t.status} = 'retired'`),
    check("signing_keys_algorithm", sql`${t.algorithm} in ('ES256', 'EdDSA', 'RS256')`),
    check("signing_keys_public_jwk_object", sql`jsonb_typeof(${t.publicJwk}) = 'object'`),
    check("signing_keys_retired_at", sql`(${t.status} = 'retired') = (${t.retiredAt} is not null)`),
  ],
);

/** Metadata of every token minted. The token itself is never stored. */
export const issuedTokens = pgTable(
  "issued_tokens",
  {
    jti: uuid("jti").primaryKey().defaultRandom(),
    appId: uuid("app_id")
      .notNull()
      .references(() => apps.id, { onDelete: "cascade" }),
    kid: text("kid")
      .notNull()
      .references(() => signingKeys.kid, { onDelete: "restrict" }),
    // { "sub": [...], "pub": [...], "all": [...] }, as in the token's claim.
    permissions: jsonb("permissions").notNull(),
    description: text("description").notNull().default(""),
    issuedBy: uuid("issued_by").references(() => users.id, { onDelete: "set null" }),
    issuedAt: timestamp("issued_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    revokedBy: uuid("revoked_by").references(() => users.id, { onDelete: "set null" }),
  },
  (t) => [
    index("issued_tokens_app_id_idx").on(t.appId),
    index("issued_tokens_expires_at_idx").on(t.expiresAt),
    check("issued_tokens_lifetime", sql`${t.expiresAt} > ${t.issuedAt}`),
    check("issued_tokens_revoked_after_issue", sql`${t.revokedAt} is null or ${t.revokedAt} >= ${t.issuedAt}`),
    check("issued_tokens_permissions_object", sql`jsonb_typeof(${t.permissions}) = 'object'`),
  ],
);

/**
 * Signed-in browser sessions. The cookie carries a random token; only its SHA-256
 * is stored, so a database leak does not hand out sessions. `csrfToken` is echoed
 * in every form and in the X-CSRF-Token header of cookie-authenticated API calls.
 */
export const sessions = pgTable(
  "sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    csrfToken: text("csrf_token").notNull(),
    createdAt: createdAt(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    userAgent: text("user_agent").notNull().default(""),
  },
  (t) => [index("sessions_user_id_idx").on(t.userId), index("sessions_expires_at_idx").on(t.expiresAt)],
);

/**
 * Personal API keys for the management API (`Authorization: Bearer slk_...`). The
 * key is shown once; only its SHA-256 and a short prefix (to tell keys apart) are kept.
 */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    prefix: text("prefix").notNull(),
    secretHash: text("secret_hash").notNull(),
    createdAt: createdAt(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("api_keys_secret_hash_key").on(t.secretHash),
    index("api_keys_user_id_idx").on(t.userId),
    check("api_keys_name_length", sql`char_length(${t.name}) between 1 and 100`),
  ],
);

/** Sign-in attempts, for rate limiting by e-mail and by client address. */
export const loginAttempts = pgTable(
  "login_attempts",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    email: text("email").notNull(),
    ip: text("ip").notNull(),
    succeeded: boolean("succeeded").notNull(),
    attemptedAt: timestamp("attempted_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("login_attempts_email_idx").on(t.email, t.attemptedAt), index("login_attempts_ip_idx").on(t.ip, t.attemptedAt)],
);

/**
 * One-time links that let someone set a password: the first admin's setup link,
 * an invitation, a password reset. Only the token's SHA-256 is stored; a link
 * works once and until it expires. The first admin's setup link also keeps its
 * token sealed under SLUICE_SECRET_KEY (token_ciphertext), so every portal
 * replica, and every restart, prints the same working link until it is used.
 */
export const accountLinks = pgTable(
  "account_links",
  {
    tokenHash: text("token_hash").primaryKey(),
    purpose: accountLinkPurpose("purpose").notNull(),
    // Null for first_admin (the account does not exist yet).
    userId: uuid("user_id").references(() => users.id, { onDelete: "cascade" }),
    createdBy: uuid("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
    tokenCiphertext: text("token_ciphertext"),
  },
  (t) => [
    check("account_links_user", sql`(${t.purpose} = 'first_admin') = (${t.userId} is null)`),
    check("account_links_sealed_token", sql`${t.tokenCiphertext} is null or ${t.purpose} = 'first_admin'`),
  ],
);

/** Who changed what, when, with the entity before and after. Append-only. */
export const auditLog = pgTable(
  "audit_log",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    occurredAt: timestamp("occurred_at", { withTimezone: true }).notNull().defaultNow(),
    actorUserId: uuid("actor_user_id").references(() => users.id, { onDelete: "set null" }),
    // A snapshot of who acted (an e-mail, "api-key:<id>", "system"), kept when the user is deleted.
    actor: text("actor").notNull(),
    action: text("action").notNull(),
    entityType: text("entity_type").notNull(),
    entityId: text("entity_id"),
    before: jsonb("before"),
    after: jsonb("after"),
  },
  (t) => [
    index("audit_log_occurred_at_idx").on(t.occurredAt.desc()),
    index("audit_log_entity_idx").on(t.entityType, t.entityId),
    check("audit_log_action_format", sql`${t.action} ~ '^[a-z_]+\\.[a-z_]+$'`),
  ],
);

/**
 * Transactional outbox of catalog changes. Written in the same transaction as the
 * change; the bridge publishes each row to `__sluice_catalog` (key = recordKey,
 * value = recordValue, null = tombstone) and sets publishedAt only after Kafka
 * acknowledged it. Inserts fire NOTIFY sluice_catalog_outbox (see the migrations).
 */
export const catalogOutbox = pgTable(
  "catalog_outbox",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    createdAt: createdAt(),
    recordKey: text("record_key").notNull(),
    recordValue: jsonb("record_value"),
    publishedAt: timestamp("published_at", { withTimezone: true }),
  },
  (t) => [
    index("catalog_outbox_pending_idx").on(t.id).where(sql`${t.publishedAt} is null`),
    check("catalog_outbox_key_not_empty", sql`char_length(${t.recordKey}) > 0`),
  ],
);

// ── Usage metering (issue 17; the usage record is described in docs/usage.md) ──
// Gateway nodes report usage per interval on the usage topic; the bridge's
// aggregator folds every record into these tables in one transaction per record.
// No foreign keys to apps/endpoints: usage is a record of what happened, kept
// for its retention even after the app or endpoint is deleted (and a record may
// name an id the portal never had, e.g. a deleted app's last connections).

const usageCounters = () => ({
  delivered: bigint("delivered", { mode: "number" }).notNull().default(0),
  deliveredBytes: bigint("delivered_bytes", { mode: "number" }).notNull().default(0),
  published: bigint("published", { mode: "number" }).notNull().default(0),
  publishedBytes: bigint("published_bytes", { mode: "number" }).notNull().default(0),
  errors: bigint("errors", { mode: "number" }).notNull().default(0),
  refusedSubscriptions: bigint("refused_subscriptions", { mode: "number" }).notNull().default(0),
  refusedPublish: bigint("refused_publish", { mode: "number" }).notNull().default(0),
  refusedDelivered: bigint("refused_delivered", { mode: "number" }).notNull().default(0),
});

/** SQL check: every usage counter and gauge of a bucket row is non-negative. */
const usageNonNegative = (columns: string[]) => sql.raw(columns.map((c) => `${c} >= 0`).join(" and "));
const ENDPOINT_USAGE_COLUMNS = [
  "subscriptions",
  "delivered",
  "delivered_bytes",
  "published",
  "published_bytes",
  "errors",
  "refused_subscriptions",
  "refused_publish",
  "refused_delivered",
];

/**
 * The idempotency record: one row per (node, interval_start) already counted, so
 * a record redelivered after a restart is skipped. Kept as long as minute buckets.
 */
export const usageIntervals = pgTable(
  "usage_intervals",
  {
    node: text("node").notNull(),
    intervalStart: timestamp("interval_start", { withTimezone: true }).notNull(),
    intervalEnd: timestamp("interval_end", { withTimezone: true }).notNull(),
    countedAt: timestamp("counted_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.node, t.intervalStart] }),
    index("usage_intervals_interval_start_idx").on(t.intervalStart),
    check("usage_intervals_order", sql`${t.intervalEnd} > ${t.intervalStart}`),
  ],
);

/** The last record of every gateway node, for the nodes page. */
export const usageNodes = pgTable(
  "usage_nodes",
  {
    node: text("node").primaryKey(),
    version: text("version").notNull(),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull(),
    lastIntervalStart: timestamp("last_interval_start", { withTimezone: true }).notNull(),
    /** interval_end of the node's latest record: when it was last seen. */
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull(),
    /** Length of its latest interval: the node is live while lastSeenAt is younger than 3 of them. */
    intervalMs: integer("interval_ms").notNull(),
    connections: integer("connections").notNull(),
    catalogOffsetLag: bigint("catalog_offset_lag", { mode: "number" }).notNull(),
    /** The latest record was the one of a graceful stop. */
    final: boolean("final").notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("usage_nodes_last_seen_idx").on(t.lastSeenAt),
    check("usage_nodes_values", sql`${t.intervalMs} > 0 and ${t.connections} >= 0 and ${t.catalogOffsetLag} >= 0`),
  ],
);

/**
 * Per minute, per node, per app: the app's connections (the node's highest
 * report in the minute) and its refused connections (summed). One row per node
 * so that gauges from several nodes add up (sum over nodes of each node's peak)
 * while a node reporting twice in a minute does not double itself.
 */
export const usageAppMinutes = pgTable(
  "usage_app_minutes",
  {
    bucketStart: timestamp("bucket_start", { withTimezone: true }).notNull(),
    appId: uuid("app_id").notNull(),
    node: text("node").notNull(),
    connections: integer("connections").notNull().default(0),
    refusedConnections: bigint("refused_connections", { mode: "number" }).notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.bucketStart, t.appId, t.node] }),
    check("usage_app_minutes_values", usageNonNegative(["connections", "refused_connections"])),
  ],
);

/** Per minute, per node, per app × endpoint: subscriptions (peak) and the counters (summed). */
export const usageEndpointMinutes = pgTable(
  "usage_endpoint_minutes",
  {
    bucketStart: timestamp("bucket_start", { withTimezone: true }).notNull(),
    appId: uuid("app_id").notNull(),
    endpointId: uuid("endpoint_id").notNull(),
    node: text("node").notNull(),
    /** The endpoint's path pattern as the gateway reported it, for display once the endpoint is gone. */
    path: text("path").notNull(),
    subscriptions: integer("subscriptions").notNull().default(0),
    ...usageCounters(),
  },
  (t) => [
    primaryKey({ columns: [t.bucketStart, t.appId, t.endpointId, t.node] }),
    index("usage_endpoint_minutes_endpoint_idx").on(t.endpointId, t.bucketStart),
    // The app traffic page reads one app's rows over a range.
    index("usage_endpoint_minutes_app_idx").on(t.appId, t.bucketStart),
    check("usage_endpoint_minutes_values", usageNonNegative(ENDPOINT_USAGE_COLUMNS)),
  ],
);

/** Per hour, per app: connections (highest per-minute sum over nodes) and refused connections. */
export const usageAppHours = pgTable(
  "usage_app_hours",
  {
    bucketStart: timestamp("bucket_start", { withTimezone: true }).notNull(),
    appId: uuid("app_id").notNull(),
    connections: integer("connections").notNull().default(0),
    refusedConnections: bigint("refused_connections", { mode: "number" }).notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.bucketStart, t.appId] }),
    check("usage_app_hours_values", usageNonNegative(["connections", "refused_connections"])),
  ],
);

/** Per hour, per app × endpoint: subscriptions (highest per-minute sum over nodes) and the counters. */
export const usageEndpointHours = pgTable(
  "usage_endpoint_hours",
  {
    bucketStart: timestamp("bucket_start", { withTimezone: true }).notNull(),
    appId: uuid("app_id").notNull(),
    endpointId: uuid("endpoint_id").notNull(),
    path: text("path").notNull(),
    subscriptions: integer("subscriptions").notNull().default(0),
    ...usageCounters(),
  },
  (t) => [
    primaryKey({ columns: [t.bucketStart, t.appId, t.endpointId] }),
    index("usage_endpoint_hours_endpoint_idx").on(t.endpointId, t.bucketStart),
    index("usage_endpoint_hours_app_idx").on(t.appId, t.bucketStart),
    check("usage_endpoint_hours_values", usageNonNegative(ENDPOINT_USAGE_COLUMNS)),
  ],
);

export type User = typeof users.$inferSelect;
export type NewUser = typeof users.$inferInsert;
export type StreamingApi = typeof streamingApis.$inferSelect;
export type NewStreamingApi = typeof streamingApis.$inferInsert;
export type Endpoint = typeof endpoints.$inferSelect;
export type NewEndpoint = typeof endpoints.$inferInsert;
export type App = typeof apps.$inferSelect;
export type NewApp = typeof apps.$inferInsert;
export type Plan = typeof plans.$inferSelect;
export type NewPlan = typeof plans.$inferInsert;
export type AppGrant = typeof appGrants.$inferSelect;
export type NewAppGrant = typeof appGrants.$inferInsert;
export type AccessRequest = typeof accessRequests.$inferSelect;
export type AccessRequestEndpoint = typeof accessRequestEndpoints.$inferSelect;
export type WebhookDelivery = typeof webhookDeliveries.$inferSelect;
export type SigningKey = typeof signingKeys.$inferSelect;
export type IssuedToken = typeof issuedTokens.$inferSelect;
export type Session = typeof sessions.$inferSelect;
export type ApiKey = typeof apiKeys.$inferSelect;
export type AccountLink = typeof accountLinks.$inferSelect;
export type AuditLogEntry = typeof auditLog.$inferSelect;
export type CatalogOutboxRow = typeof catalogOutbox.$inferSelect;
export type UsageNode = typeof usageNodes.$inferSelect;
