ALTER TABLE "signing_keys" ADD COLUMN "expired_at" timestamp with time zone;--> statement-breakpoint
-- Until now a tombstoned key was marked only by its audit entry signing_key.expire.
UPDATE "signing_keys" AS k SET "expired_at" = a."occurred_at"
  FROM (SELECT "entity_id", min("occurred_at") AS "occurred_at" FROM "audit_log"
         WHERE "entity_type" = 'signing_key' AND "action" = 'signing_key.expire' GROUP BY "entity_id") AS a
 WHERE a."entity_id" = k."kid" AND k."status" = 'retired';--> statement-breakpoint
ALTER TABLE "signing_keys" ADD CONSTRAINT "signing_keys_expired_at" CHECK ("signing_keys"."expired_at" is null or "signing_keys"."status" = 'retired');
