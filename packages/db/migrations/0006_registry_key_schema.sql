ALTER TABLE "endpoints" ADD COLUMN "key_subject" text;--> statement-breakpoint
ALTER TABLE "endpoints" ADD COLUMN "key_subject_strategy" "subject_strategy";--> statement-breakpoint
ALTER TABLE "endpoints" ADD COLUMN "key_record_name" text;--> statement-breakpoint
ALTER TABLE "endpoints" ADD COLUMN "key_schema_version" integer;--> statement-breakpoint
ALTER TABLE "endpoints" ADD CONSTRAINT "endpoints_key_subject_strategy" CHECK (("endpoints"."key_subject" is null) = ("endpoints"."key_subject_strategy" is null));--> statement-breakpoint
ALTER TABLE "endpoints" ADD CONSTRAINT "endpoints_key_subject_length" CHECK ("endpoints"."key_subject" is null or char_length("endpoints"."key_subject") between 1 and 255);--> statement-breakpoint
ALTER TABLE "endpoints" ADD CONSTRAINT "endpoints_key_record_name" CHECK (("endpoints"."key_subject_strategy" is not null and "endpoints"."key_subject_strategy"::text <> 'topic') = ("endpoints"."key_record_name" is not null));--> statement-breakpoint
ALTER TABLE "endpoints" ADD CONSTRAINT "endpoints_key_schema_version" CHECK ("endpoints"."key_schema_version" is null or ("endpoints"."key_schema_version" > 0 and "endpoints"."key_subject" is not null));