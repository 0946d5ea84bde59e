CREATE TABLE "plans" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"api_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"connections" bigint,
	"subscriptions_per_connection" bigint,
	"publish_per_second" bigint,
	"delivered_per_second" bigint,
	"delivered_bytes_per_second" bigint,
	"auto_approve" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "plans_name_length" CHECK (char_length("plans"."name") between 1 and 40),
	CONSTRAINT "plans_description_length" CHECK (char_length("plans"."description") <= 500),
	CONSTRAINT "plans_connections" CHECK (connections is null or connections between 1 and 1099511627776),
	CONSTRAINT "plans_subscriptions_per_connection" CHECK (subscriptions_per_connection is null or subscriptions_per_connection between 1 and 1099511627776),
	CONSTRAINT "plans_publish_per_second" CHECK (publish_per_second is null or publish_per_second between 1 and 1099511627776),
	CONSTRAINT "plans_delivered_per_second" CHECK (delivered_per_second is null or delivered_per_second between 1 and 1099511627776),
	CONSTRAINT "plans_delivered_bytes_per_second" CHECK (delivered_bytes_per_second is null or delivered_bytes_per_second between 1 and 1099511627776)
);
--> statement-breakpoint
ALTER TABLE "access_requests" ADD COLUMN "plan_id" uuid;--> statement-breakpoint
ALTER TABLE "access_requests" ADD COLUMN "auto_approved" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "app_grants" ADD COLUMN "plan_id" uuid;--> statement-breakpoint
ALTER TABLE "plans" ADD CONSTRAINT "plans_api_id_streaming_apis_id_fk" FOREIGN KEY ("api_id") REFERENCES "public"."streaming_apis"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "plans_api_name_key" ON "plans" USING btree ("api_id",lower("name"));--> statement-breakpoint
ALTER TABLE "access_requests" ADD CONSTRAINT "access_requests_plan_id_plans_id_fk" FOREIGN KEY ("plan_id") REFERENCES "public"."plans"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_grants" ADD CONSTRAINT "app_grants_plan_id_plans_id_fk" FOREIGN KEY ("plan_id") REFERENCES "public"."plans"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "app_grants_plan_idx" ON "app_grants" USING btree ("plan_id");--> statement-breakpoint
ALTER TABLE "access_requests" ADD CONSTRAINT "access_requests_auto_approved" CHECK (not "access_requests"."auto_approved" or ("access_requests"."state" = 'approved' and "access_requests"."decided_by" is null));