import { defineConfig } from "drizzle-kit";

// `pnpm generate` writes a new SQL migration from src/schema.ts; no database needed.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/schema.ts",
  out: "./migrations",
  casing: "snake_case",
});
