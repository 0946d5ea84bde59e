export * from "./settings.ts";
export * from "./oauth.ts";
export * from "./kafkajs.ts";
export * from "./explain.ts";
