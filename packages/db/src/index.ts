export * from "./schema.ts";
export * from "./catalog-records.ts";
export * from "./catalog-membership.ts";
export { createDb, databaseUrlFromEnv, type Database } from "./client.ts";

/** The channel the outbox trigger notifies on every committed insert. */
export const CATALOG_OUTBOX_CHANNEL = "sluice_catalog_outbox";
