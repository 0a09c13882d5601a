import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./auth";

/**
 * A tool call an agent made as a task (MCP's Tasks extension): the task id it was given, and what
 * the task follows. An `import` or `build_graph` task follows its import task's or build's own row
 * (`record_id`); an `ask` runs in the API process and keeps its answer here until the task expires.
 */
export const mcpTasks = sqliteTable(
  "mcp_tasks",
  {
    /** The task id the agent holds: random (a UUID), never derived from the record's id. */
    id: text("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    tool: text("tool", { enum: ["import", "build_graph", "ask"] }).notNull(),
    /** The import task's or graph build's id; null for `ask`. */
    recordId: integer("record_id"),
    /**
     * What this service decided of the task itself: `working` while an import or build follows
     * its record (or an ask runs), `cancelled` once a cancellation took effect; an ask ends
     * `completed` or `failed` here.
     */
    status: text("status", { enum: ["working", "completed", "failed", "cancelled"] }).notNull(),
    statusMessage: text("status_message"),
    /** An ask's tool result (JSON of the CallToolResult), once answered. */
    result: text("result"),
    /** An ask's JSON-RPC error (JSON `{code, message}`) when it could not be answered at all. */
    error: text("error"),
    ttlMs: integer("ttl_ms").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    /** created_at + ttl_ms: past it the task is gone. */
    expiresAt: integer("expires_at").notNull(),
  },
  (table) => [index("mcp_tasks_expires_idx").on(table.expiresAt)],
);
