CREATE TYPE "public"."access_request_state" AS ENUM('pending', 'approved', 'rejected', 'withdrawn');--> statement-breakpoint
CREATE TYPE "public"."webhook_delivery_state" AS ENUM('pending', 'delivered', 'failed');--> statement-breakpoint
CREATE TABLE "access_request_endpoints" (
	"request_id" uuid NOT NULL,
	"endpoint_id" uuid NOT NULL,
	CONSTRAINT "access_request_endpoints_request_id_endpoint_id_pk" PRIMARY KEY("request_id","endpoint_id")
);
--> statement-breakpoint
CREATE TABLE "access_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"app_id" uuid NOT NULL,
	"api_id" uuid NOT NULL,
	"whole_api" boolean NOT NULL,
	"operations" text[] NOT NULL,
	"justification" text NOT NULL,
	"state" "access_request_state" DEFAULT 'pending' NOT NULL,
	"requested_by" uuid,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_by" uuid,
	"decided_at" timestamp with time zone,
	"reason" text,
	CONSTRAINT "access_requests_operations_valid" CHECK (cardinality(operations) > 0 and operations <@ array['subscribe','publish']::text[]),
	CONSTRAINT "access_requests_justification_length" CHECK (char_length("access_requests"."justification") between 1 and 500),
	CONSTRAINT "access_requests_decided" CHECK (("access_requests"."state" = 'pending') = ("access_requests"."decided_at" is null)),
	CONSTRAINT "access_requests_reason" CHECK (("access_requests"."state" = 'rejected') = ("access_requests"."reason" is not null)),
	CONSTRAINT "access_requests_reason_length" CHECK ("access_requests"."reason" is null or char_length("access_requests"."reason") between 1 and 500)
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"event" text NOT NULL,
	"url" text NOT NULL,
	"payload" jsonb NOT NULL,
	"state" "webhook_delivery_state" DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_attempt_at" timestamp with time zone,
	"last_status" integer,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone,
	CONSTRAINT "webhook_deliveries_event_format" CHECK ("webhook_deliveries"."event" ~ '^[a-z_]+\.[a-z_]+$'),
	CONSTRAINT "webhook_deliveries_url_http" CHECK ("webhook_deliveries"."url" ~ '^https?://'),
	CONSTRAINT "webhook_deliveries_payload_object" CHECK (jsonb_typeof("webhook_deliveries"."payload") = 'object'),
	CONSTRAINT "webhook_deliveries_attempts" CHECK ("webhook_deliveries"."attempts" >= 0),
	CONSTRAINT "webhook_deliveries_delivered" CHECK (("webhook_deliveries"."state" = 'delivered') = ("webhook_deliveries"."delivered_at" is not null))
);
--> statement-breakpoint
ALTER TABLE "access_request_endpoints" ADD CONSTRAINT "access_request_endpoints_request_id_access_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."access_requests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_request_endpoints" ADD CONSTRAINT "access_request_endpoints_endpoint_id_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_requests" ADD CONSTRAINT "access_requests_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_requests" ADD CONSTRAINT "access_requests_api_id_streaming_apis_id_fk" FOREIGN KEY ("api_id") REFERENCES "public"."streaming_apis"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_requests" ADD CONSTRAINT "access_requests_requested_by_users_id_fk" FOREIGN KEY ("requested_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_requests" ADD CONSTRAINT "access_requests_decided_by_users_id_fk" FOREIGN KEY ("decided_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "access_request_endpoints_endpoint_idx" ON "access_request_endpoints" USING btree ("endpoint_id");--> statement-breakpoint
CREATE INDEX "access_requests_app_idx" ON "access_requests" USING btree ("app_id","requested_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "access_requests_api_state_idx" ON "access_requests" USING btree ("api_id","state");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("next_attempt_at") WHERE "webhook_deliveries"."state" = 'pending';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_created_idx" ON "webhook_deliveries" USING btree ("created_at" DESC NULLS LAST);