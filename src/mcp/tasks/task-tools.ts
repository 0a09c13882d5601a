import type { Access } from "../../modules/tokens/scopes";

const HOUR = 60 * 60_000;

/**
 * The tools whose calls become tasks for a client that declared the Tasks extension, and how each
 * task is kept: how long it lives (`ttlMs`), how often to poll it, and the scope a token needs to
 * follow or cancel it — that of the operation reading the same record (GET /api/tasks/{id},
 * GET /api/knowledge-graph/status, POST /api/ask).
 */
export const TASK_TOOLS = {
  // The import task itself stays (GET /api/tasks/{id}); the agent's handle to it lasts a day.
  import: { ttlMs: 24 * HOUR, pollIntervalMs: 2_000, access: "imports" },
  build_graph: { ttlMs: 24 * HOUR, pollIntervalMs: 5_000, access: "graph:read" },
  // An answer is kept here alone, with its passages: an hour, then it is gone.
  ask: { ttlMs: HOUR, pollIntervalMs: 1_000, access: "ask" },
} as const satisfies Record<string, { ttlMs: number; pollIntervalMs: number; access: Access }>;

export type TaskTool = keyof typeof TASK_TOOLS;

export function isTaskTool(name: string): name is TaskTool {
  return Object.hasOwn(TASK_TOOLS, name);
}

/**
 * An ask answers within half a minute (its LLM call has a 25 s deadline); one still working long
 * after that lost the process that ran it.
 */
export const ASK_ABANDONED_AFTER_MS = 5 * 60_000;
