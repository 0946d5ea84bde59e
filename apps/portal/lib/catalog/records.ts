// The catalog record builders live in @sluice/db so the bridge builds the same
// records when it republishes the whole catalog.
export * from "@sluice/db/catalog-records";
