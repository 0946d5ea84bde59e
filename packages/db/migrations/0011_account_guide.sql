ALTER TABLE "users" ADD COLUMN "previous_login_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "checklist_dismissed_at" timestamp with time zone;