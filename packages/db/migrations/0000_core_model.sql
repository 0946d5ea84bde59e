CREATE TYPE "public"."payload_format" AS ENUM('json', 'text', 'bytes');--> statement-breakpoint
CREATE TYPE "public"."signing_key_status" AS ENUM('active', 'retired');--> statement-breakpoint
CREATE TYPE "public"."user_role" AS ENUM('admin', 'editor', 'viewer');--> statement-breakpoint
CREATE TABLE "app_grants" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"app_id" uuid NOT NULL,
	"endpoint_pattern" text NOT NULL,
	"operations" text[] NOT NULL,
	"granted_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "app_grants_app_pattern_key" UNIQUE("app_id","endpoint_pattern"),
	CONSTRAINT "app_grants_pattern_format" CHECK ("app_grants"."endpoint_pattern" ~ '^/[^/[:space:]]+(/.*)?$' and char_length("app_grants"."endpoint_pattern") <= 1024),
	CONSTRAINT "app_grants_operations_valid" CHECK (cardinality(operations) > 0 and operations <@ array['subscribe','publish']::text[])
);
--> statement-breakpoint
CREATE TABLE "apps" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"owner_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "apps_owner_name_key" UNIQUE("owner_id","name"),
	CONSTRAINT "apps_name_length" CHECK (char_length("apps"."name") between 1 and 100)
);
--> statement-breakpoint
CREATE TABLE "audit_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "audit_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"occurred_at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor_user_id" uuid,
	"actor" text NOT NULL,
	"action" text NOT NULL,
	"entity_type" text NOT NULL,
	"entity_id" text,
	"before" jsonb,
	"after" jsonb,
	CONSTRAINT "audit_log_action_format" CHECK ("audit_log"."action" ~ '^[a-z_]+\.[a-z_]+$')
);
--> statement-breakpoint
CREATE TABLE "catalog_outbox" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "catalog_outbox_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"record_key" text NOT NULL,
	"record_value" jsonb,
	"published_at" timestamp with time zone,
	CONSTRAINT "catalog_outbox_key_not_empty" CHECK (char_length("catalog_outbox"."record_key") > 0)
);
--> statement-breakpoint
CREATE TABLE "endpoints" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"api_id" uuid NOT NULL,
	"path" text NOT NULL,
	"topic" text NOT NULL,
	"key" text,
	"key_param" text,
	"operations" text[] NOT NULL,
	"payload_format" "payload_format" DEFAULT 'json' NOT NULL,
	"json_schema" jsonb,
	"description" text DEFAULT '' NOT NULL,
	"examples" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "endpoints_path_key" UNIQUE("path"),
	CONSTRAINT "endpoints_topic_format" CHECK ("endpoints"."topic" ~ '^[A-Za-z0-9._-]{1,249}$' and "endpoints"."topic" not in ('.', '..')),
	CONSTRAINT "endpoints_key_xor_param" CHECK (("endpoints"."key" is null) <> ("endpoints"."key_param" is null)),
	CONSTRAINT "endpoints_key_not_empty" CHECK ("endpoints"."key" is null or char_length("endpoints"."key") between 1 and 1024),
	CONSTRAINT "endpoints_key_param_format" CHECK ("endpoints"."key_param" is null or "endpoints"."key_param" ~ '^[A-Za-z_][A-Za-z0-9_]{0,63}$'),
	CONSTRAINT "endpoints_path_topic" CHECK (starts_with("endpoints"."path", '/' || "endpoints"."topic" || '/')),
	CONSTRAINT "endpoints_path_param" CHECK ("endpoints"."key_param" is null or "endpoints"."path" = '/' || "endpoints"."topic" || '/{' || "endpoints"."key_param" || '}'),
	CONSTRAINT "endpoints_operations_valid" CHECK (cardinality(operations) > 0 and operations <@ array['subscribe','publish']::text[]),
	CONSTRAINT "endpoints_schema_is_json_object" CHECK ("endpoints"."json_schema" is null or (jsonb_typeof("endpoints"."json_schema") = 'object' and "endpoints"."payload_format" = 'json')),
	CONSTRAINT "endpoints_examples_array" CHECK (jsonb_typeof("endpoints"."examples") = 'array')
);
--> statement-breakpoint
CREATE TABLE "issued_tokens" (
	"jti" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"app_id" uuid NOT NULL,
	"kid" text NOT NULL,
	"permissions" jsonb NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"issued_by" uuid,
	"issued_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"revoked_by" uuid,
	CONSTRAINT "issued_tokens_lifetime" CHECK ("issued_tokens"."expires_at" > "issued_tokens"."issued_at"),
	CONSTRAINT "issued_tokens_revoked_after_issue" CHECK ("issued_tokens"."revoked_at" is null or "issued_tokens"."revoked_at" >= "issued_tokens"."issued_at"),
	CONSTRAINT "issued_tokens_permissions_object" CHECK (jsonb_typeof("issued_tokens"."permissions") = 'object')
);
--> statement-breakpoint
CREATE TABLE "signing_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"algorithm" text NOT NULL,
	"public_jwk" jsonb NOT NULL,
	"private_key_ciphertext" text NOT NULL,
	"status" "signing_key_status" DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"retired_at" timestamp with time zone,
	CONSTRAINT "signing_keys_algorithm" CHECK ("signing_keys"."algorithm" in ('ES256', 'EdDSA', 'RS256')),
	CONSTRAINT "signing_keys_public_jwk_object" CHECK (jsonb_typeof("signing_keys"."public_jwk") = 'object'),
	CONSTRAINT "signing_keys_retired_at" CHECK (("signing_keys"."status" = 'retired') = ("signing_keys"."retired_at" is not null))
);
--> statement-breakpoint
CREATE TABLE "streaming_apis" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"version" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"tags" text[] DEFAULT '{}'::text[] NOT NULL,
	"owner_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "streaming_apis_name_version_key" UNIQUE("name","version"),
	CONSTRAINT "streaming_apis_name_length" CHECK (char_length("streaming_apis"."name") between 1 and 100),
	CONSTRAINT "streaming_apis_version_format" CHECK ("streaming_apis"."version" ~ '^[A-Za-z0-9][A-Za-z0-9._+-]{0,49}$')
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"email" text NOT NULL,
	"display_name" text DEFAULT '' NOT NULL,
	"password_hash" text,
	"role" "user_role" DEFAULT 'viewer' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_login_at" timestamp with time zone,
	"disabled_at" timestamp with time zone,
	CONSTRAINT "users_email_format" CHECK ("users"."email" ~ '^[^@[:space:]]+@[^@[:space:]]+$')
);
--> statement-breakpoint
ALTER TABLE "app_grants" ADD CONSTRAINT "app_grants_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_grants" ADD CONSTRAINT "app_grants_granted_by_users_id_fk" FOREIGN KEY ("granted_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "apps" ADD CONSTRAINT "apps_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_actor_user_id_users_id_fk" FOREIGN KEY ("actor_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "endpoints" ADD CONSTRAINT "endpoints_api_id_streaming_apis_id_fk" FOREIGN KEY ("api_id") REFERENCES "public"."streaming_apis"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "issued_tokens" ADD CONSTRAINT "issued_tokens_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "issued_tokens" ADD CONSTRAINT "issued_tokens_kid_signing_keys_kid_fk" FOREIGN KEY ("kid") REFERENCES "public"."signing_keys"("kid") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "issued_tokens" ADD CONSTRAINT "issued_tokens_issued_by_users_id_fk" FOREIGN KEY ("issued_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "issued_tokens" ADD CONSTRAINT "issued_tokens_revoked_by_users_id_fk" FOREIGN KEY ("revoked_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "streaming_apis" ADD CONSTRAINT "streaming_apis_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_log_occurred_at_idx" ON "audit_log" USING btree ("occurred_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "audit_log_entity_idx" ON "audit_log" USING btree ("entity_type","entity_id");--> statement-breakpoint
CREATE INDEX "catalog_outbox_pending_idx" ON "catalog_outbox" USING btree ("id") WHERE "catalog_outbox"."published_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "endpoints_topic_param_key" ON "endpoints" USING btree ("topic") WHERE "endpoints"."key_param" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "endpoints_topic_key_key" ON "endpoints" USING btree ("topic","key") WHERE "endpoints"."key" is not null;--> statement-breakpoint
CREATE INDEX "endpoints_api_id_idx" ON "endpoints" USING btree ("api_id");--> statement-breakpoint
CREATE INDEX "issued_tokens_app_id_idx" ON "issued_tokens" USING btree ("app_id");--> statement-breakpoint
CREATE INDEX "issued_tokens_expires_at_idx" ON "issued_tokens" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "signing_keys_one_active" ON "signing_keys" USING btree ("status") WHERE "signing_keys"."status" = 'active';--> statement-breakpoint
CREATE INDEX "streaming_apis_tags_idx" ON "streaming_apis" USING gin ("tags");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_lower_key" ON "users" USING btree (lower("email"));