import { defineConfig } from "drizzle-kit";

// Generates SQL migrations into drizzle/ from src/db/schema; they are applied at start-up.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema/index.ts",
  out: "./drizzle",
});
