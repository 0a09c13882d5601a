import { and, eq } from "drizzle-orm";
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { CompletedTaskV2, DetailedTaskV2 } from "@modelcontextprotocol/ext-tasks/core/v2";
import { graphBuilds } from "../../db/schema";
import { getBuildStatus } from "../../modules/graph/get-build-status";
import type { BuildStatus } from "../../modules/graph/schemas";
import { getTask as getImportTask } from "../../modules/imports/list-tasks";
import type { TaskRecord } from "../../modules/imports/schemas";
import { NotFoundError } from "../../modules/errors";
import type { Caller as TaskCaller } from "../caller";
import { endTask, type TaskRow } from "./task-store";
import { ASK_ABANDONED_AFTER_MS, TASK_TOOLS } from "./task-tools";

const INTERNAL_ERROR = -32603;
const iso = (ms: number) => new Date(ms).toISOString();

/** A task's state as the extension shapes it, before it is dressed as one answer or another. */
type TaskState =
  | { status: "working" | "cancelled"; statusMessage?: string; updatedAt: number }
  | { status: "completed"; statusMessage?: string; updatedAt: number; result: CallToolResult }
  | { status: "failed"; statusMessage?: string; updatedAt: number; error: { code: number; message: string } };

/** A tool's answer as `tools/call` gives it: the JSON once as structured content and once as text. */
export function toolResult(structured: object): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured as Record<string, unknown> };
}

/**
 * The task now, as `tasks/get` answers it: an import or a build follows its own record, an ask
 * the row it is answered into. A finished tool result carries `resultType: "complete"`, as the
 * call itself would have on this revision.
 */
export async function viewTask(caller: TaskCaller, row: TaskRow): Promise<DetailedTaskV2> {
  const state = await stateOf(caller, row);
  const task = {
    taskId: row.id,
    status: state.status,
    ...(state.statusMessage ? { statusMessage: state.statusMessage } : {}),
    createdAt: iso(row.createdAt),
    lastUpdatedAt: iso(Math.max(row.updatedAt, state.updatedAt)),
    ttlMs: row.ttlMs,
    pollIntervalMs: TASK_TOOLS[row.tool].pollIntervalMs,
  };
  if (state.status === "completed") return { ...task, status: "completed", result: { resultType: "complete", ...state.result } as CompletedTaskV2["result"] };
  if (state.status === "failed") return { ...task, status: "failed", error: state.error };
  return { ...task, status: state.status };
}

function stateOf(caller: TaskCaller, row: TaskRow): Promise<TaskState> | TaskState {
  // A cancellation that took effect is the row's own word, whatever the record says since.
  if (row.status === "cancelled") return { status: "cancelled", statusMessage: row.statusMessage ?? "Cancelled", updatedAt: row.updatedAt };
  if (row.tool === "import") return importState(caller, row);
  if (row.tool === "build_graph") return buildState(caller, row);
  return askState(caller, row);
}

/** Its record gone (deleted behind the task's back): a fault of the service, not a tool error. */
function vanished(what: string, row: TaskRow): TaskState {
  return { status: "failed", statusMessage: `${what} is gone`, updatedAt: row.updatedAt, error: { code: INTERNAL_ERROR, message: `${what} is gone` } };
}

/**
 * pending or running → working, with the task's own message ("Queued", "Fetching example.com");
 * completed → the import tool's answer, the finished task with its `note_id`; failed → completed
 * all the same, as a tool error (`isError`) saying why — the extension keeps `failed` for
 * protocol errors. A cancellation that took effect was answered above from the row.
 */
async function importState(caller: TaskCaller, row: TaskRow): Promise<TaskState> {
  let task: TaskRecord;
  try {
    task = await getImportTask({ ctx: { db: caller.db, userId: row.userId }, input: { id: row.recordId! } });
  } catch (error) {
    if (error instanceof NotFoundError) return vanished(`Import task ${row.recordId}`, row);
    throw error;
  }
  const updatedAt = Date.parse(task.updated_at);
  if (task.status === "pending" || task.status === "running") return { status: "working", statusMessage: task.message, updatedAt };
  if (task.status === "completed") return { status: "completed", statusMessage: task.message, updatedAt, result: toolResult(task) };
  return { status: "completed", statusMessage: task.error ?? task.message, updatedAt, result: { ...toolResult(task), content: [{ type: "text", text: task.error ?? task.message }], isError: true } };
}

/** building → working with the build's message; completed → its status, as build_graph answers; failed → a tool error, as for imports. */
async function buildState(caller: TaskCaller, row: TaskRow): Promise<TaskState> {
  let build: BuildStatus;
  try {
    build = await getBuildStatus({ ctx: { db: caller.db, userId: row.userId, graphSettings: caller.graphSettings }, buildId: row.recordId! });
  } catch (error) {
    if (error instanceof NotFoundError) return vanished(`Graph build ${row.recordId}`, row);
    throw error;
  }
  // The status shows when the build started and finished; the row knows when its progress last moved.
  const [touched] = await caller.db.select({ updatedAt: graphBuilds.updatedAt }).from(graphBuilds).where(and(eq(graphBuilds.id, row.recordId!), eq(graphBuilds.userId, row.userId)));
  const updatedAt = touched?.updatedAt ?? row.updatedAt;
  if (build.status === "building" || build.status === "idle") return { status: "working", statusMessage: build.message, updatedAt };
  if (build.status === "completed") return { status: "completed", statusMessage: build.message, updatedAt, result: toolResult(build) };
  return { status: "completed", statusMessage: build.error ?? build.message, updatedAt, result: { ...toolResult(build), content: [{ type: "text", text: build.error ?? build.message }], isError: true } };
}

/** An ask is answered into its row; one still working long past any answer's deadline lost its process, and says so. */
async function askState(caller: TaskCaller, row: TaskRow): Promise<TaskState> {
  if (row.status === "working" && Date.now() - row.createdAt > ASK_ABANDONED_AFTER_MS) {
    const error = { code: INTERNAL_ERROR, message: "The question was not answered: the service stopped while answering it. Ask again." };
    await endTask(caller.db, row.id, { status: "failed", statusMessage: error.message, error });
    return { status: "failed", statusMessage: error.message, updatedAt: Date.now(), error };
  }
  const base = { statusMessage: row.statusMessage ?? undefined, updatedAt: row.updatedAt };
  if (row.status === "completed") return { ...base, status: "completed", result: JSON.parse(row.result!) as CallToolResult };
  if (row.status === "failed") return { ...base, status: "failed", error: JSON.parse(row.error!) as { code: number; message: string } };
  return { ...base, status: "working" };
}
