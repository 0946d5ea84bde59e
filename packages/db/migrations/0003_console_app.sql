CREATE TYPE "public"."app_kind" AS ENUM('standard', 'console');--> statement-breakpoint
ALTER TABLE "apps" ADD COLUMN "kind" "app_kind" DEFAULT 'standard' NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "apps_one_console" ON "apps" USING btree ("kind") WHERE "apps"."kind" = 'console';