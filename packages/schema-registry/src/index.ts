export * from "./settings.ts";
export * from "./client.ts";
export * from "./to-json-schema.ts";
