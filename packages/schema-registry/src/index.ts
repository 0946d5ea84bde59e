export * from "./settings.ts";
export * from "./client.ts";
