CREATE TABLE "usage_app_hours" (
	"bucket_start" timestamp with time zone NOT NULL,
	"app_id" uuid NOT NULL,
	"connections" integer DEFAULT 0 NOT NULL,
	"refused_connections" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_app_hours_bucket_start_app_id_pk" PRIMARY KEY("bucket_start","app_id"),
	CONSTRAINT "usage_app_hours_values" CHECK (connections >= 0 and refused_connections >= 0)
);
--> statement-breakpoint
CREATE TABLE "usage_app_minutes" (
	"bucket_start" timestamp with time zone NOT NULL,
	"app_id" uuid NOT NULL,
	"node" text NOT NULL,
	"connections" integer DEFAULT 0 NOT NULL,
	"refused_connections" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_app_minutes_bucket_start_app_id_node_pk" PRIMARY KEY("bucket_start","app_id","node"),
	CONSTRAINT "usage_app_minutes_values" CHECK (connections >= 0 and refused_connections >= 0)
);
--> statement-breakpoint
CREATE TABLE "usage_endpoint_hours" (
	"bucket_start" timestamp with time zone NOT NULL,
	"app_id" uuid NOT NULL,
	"endpoint_id" uuid NOT NULL,
	"path" text NOT NULL,
	"subscriptions" integer DEFAULT 0 NOT NULL,
	"delivered" bigint DEFAULT 0 NOT NULL,
	"delivered_bytes" bigint DEFAULT 0 NOT NULL,
	"published" bigint DEFAULT 0 NOT NULL,
	"published_bytes" bigint DEFAULT 0 NOT NULL,
	"errors" bigint DEFAULT 0 NOT NULL,
	"refused_subscriptions" bigint DEFAULT 0 NOT NULL,
	"refused_publish" bigint DEFAULT 0 NOT NULL,
	"refused_delivered" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_endpoint_hours_bucket_start_app_id_endpoint_id_pk" PRIMARY KEY("bucket_start","app_id","endpoint_id"),
	CONSTRAINT "usage_endpoint_hours_values" CHECK (subscriptions >= 0 and delivered >= 0 and delivered_bytes >= 0 and published >= 0 and published_bytes >= 0 and errors >= 0 and refused_subscriptions >= 0 and refused_publish >= 0 and refused_delivered >= 0)
);
--> statement-breakpoint
CREATE TABLE "usage_endpoint_minutes" (
	"bucket_start" timestamp with time zone NOT NULL,
	"app_id" uuid NOT NULL,
	"endpoint_id" uuid NOT NULL,
	"node" text NOT NULL,
	"path" text NOT NULL,
	"subscriptions" integer DEFAULT 0 NOT NULL,
	"delivered" bigint DEFAULT 0 NOT NULL,
	"delivered_bytes" bigint DEFAULT 0 NOT NULL,
	"published" bigint DEFAULT 0 NOT NULL,
	"published_bytes" bigint DEFAULT 0 NOT NULL,
	"errors" bigint DEFAULT 0 NOT NULL,
	"refused_subscriptions" bigint DEFAULT 0 NOT NULL,
	"refused_publish" bigint DEFAULT 0 NOT NULL,
	"refused_delivered" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_endpoint_minutes_bucket_start_app_id_endpoint_id_node_pk" PRIMARY KEY("bucket_start","app_id","endpoint_id","node"),
	CONSTRAINT "usage_endpoint_minutes_values" CHECK (subscriptions >= 0 and delivered >= 0 and delivered_bytes >= 0 and published >= 0 and published_bytes >= 0 and errors >= 0 and refused_subscriptions >= 0 and refused_publish >= 0 and refused_delivered >= 0)
);
--> statement-breakpoint
CREATE TABLE "usage_intervals" (
	"node" text NOT NULL,
	"interval_start" timestamp with time zone NOT NULL,
	"interval_end" timestamp with time zone NOT NULL,
	"counted_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "usage_intervals_node_interval_start_pk" PRIMARY KEY("node","interval_start"),
	CONSTRAINT "usage_intervals_order" CHECK ("usage_intervals"."interval_end" > "usage_intervals"."interval_start")
);
--> statement-breakpoint
CREATE TABLE "usage_nodes" (
	"node" text PRIMARY KEY NOT NULL,
	"version" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"last_interval_start" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	"interval_ms" integer NOT NULL,
	"connections" integer NOT NULL,
	"catalog_offset_lag" bigint NOT NULL,
	"final" boolean NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "usage_nodes_values" CHECK ("usage_nodes"."interval_ms" > 0 and "usage_nodes"."connections" >= 0 and "usage_nodes"."catalog_offset_lag" >= 0)
);
--> statement-breakpoint
CREATE INDEX "usage_endpoint_hours_endpoint_idx" ON "usage_endpoint_hours" USING btree ("endpoint_id","bucket_start");--> statement-breakpoint
CREATE INDEX "usage_endpoint_hours_app_idx" ON "usage_endpoint_hours" USING btree ("app_id","bucket_start");--> statement-breakpoint
CREATE INDEX "usage_endpoint_minutes_endpoint_idx" ON "usage_endpoint_minutes" USING btree ("endpoint_id","bucket_start");--> statement-breakpoint
CREATE INDEX "usage_endpoint_minutes_app_idx" ON "usage_endpoint_minutes" USING btree ("app_id","bucket_start");--> statement-breakpoint
CREATE INDEX "usage_intervals_interval_start_idx" ON "usage_intervals" USING btree ("interval_start");--> statement-breakpoint
CREATE INDEX "usage_nodes_last_seen_idx" ON "usage_nodes" USING btree ("last_seen_at");