import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "postgresql",
  schema: "./lib/db/appSchema.ts",
  out: "./lib/db/migrations",
  schemaFilter: ["app"],
  casing: "snake_case",
});
