CREATE TYPE "public"."subject_strategy" AS ENUM('topic', 'record', 'topic-record');--> statement-breakpoint
ALTER TYPE "public"."payload_format" ADD VALUE 'avro';--> statement-breakpoint
ALTER TYPE "public"."payload_format" ADD VALUE 'protobuf';--> statement-breakpoint
ALTER TYPE "public"."payload_format" ADD VALUE 'json-schema';--> statement-breakpoint
ALTER TABLE "endpoints" ADD COLUMN "value_subject" text;--> statement-breakpoint
ALTER TABLE "endpoints" ADD COLUMN "value_subject_strategy" "subject_strategy";--> statement-breakpoint
ALTER TABLE "endpoints" ADD COLUMN "value_record_name" text;--> statement-breakpoint
ALTER TABLE "endpoints" ADD COLUMN "value_schema_version" integer;--> statement-breakpoint
ALTER TABLE "endpoints" ADD CONSTRAINT "endpoints_value_subject_registry" CHECK (("endpoints"."payload_format"::text in ('avro', 'protobuf', 'json-schema')) = ("endpoints"."value_subject" is not null and "endpoints"."value_subject_strategy" is not null));--> statement-breakpoint
ALTER TABLE "endpoints" ADD CONSTRAINT "endpoints_value_subject_length" CHECK ("endpoints"."value_subject" is null or char_length("endpoints"."value_subject") between 1 and 255);--> statement-breakpoint
ALTER TABLE "endpoints" ADD CONSTRAINT "endpoints_value_record_name" CHECK (("endpoints"."value_subject_strategy" is not null and "endpoints"."value_subject_strategy"::text <> 'topic') = ("endpoints"."value_record_name" is not null));--> statement-breakpoint
ALTER TABLE "endpoints" ADD CONSTRAINT "endpoints_value_schema_version" CHECK ("endpoints"."value_schema_version" is null or ("endpoints"."value_schema_version" > 0 and "endpoints"."value_subject" is not null));