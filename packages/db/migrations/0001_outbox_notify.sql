-- Wake the bridge when catalog changes commit. NOTIFY is delivered only when the
-- inserting transaction commits, so the bridge never sees a change that rolls back.
-- One notification per statement is enough: the bridge reads every pending row.
CREATE FUNCTION "catalog_outbox_notify"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('sluice_catalog_outbox', '');
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "catalog_outbox_notify_after_insert"
AFTER INSERT ON "catalog_outbox"
FOR EACH STATEMENT EXECUTE FUNCTION "catalog_outbox_notify"();
