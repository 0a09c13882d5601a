import { MissingRequiredClientCapabilityError, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { CLIENT_CAPABILITIES_META_KEY_V2, hasTaskClientCapabilityV2, TASKS_EXTENSION_ID_V2, type GetTaskResultV2 } from "@modelcontextprotocol/ext-tasks/core/v2";
import { NotFoundError } from "../../modules/errors";
import { cancelPendingTask, CANCELLED } from "../../modules/imports/cancel-task";
import { allows } from "../../modules/tokens/credential";
import type { Caller as TaskCaller } from "../caller";
import { deleteTask, endTask, findTask, type TaskRow } from "./task-store";
import { TASK_TOOLS } from "./task-tools";
import { viewTask } from "./task-view";

/** The empty acknowledgement `tasks/cancel` and `tasks/update` answer. */
type Acknowledgement = { resultType: "complete" };

/**
 * Whether the request's client capabilities (2026-07-28: `_meta["io.modelcontextprotocol/clientCapabilities"]`,
 * which the SDK lifts into `ctx.mcpReq.envelope`) declare the Tasks extension. Declared per
 * request: nothing is remembered from an earlier one.
 */
export function declaresTasks(envelope: unknown): boolean {
  const capabilities = (envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY_V2];
  return hasTaskClientCapabilityV2({ _meta: { [CLIENT_CAPABILITIES_META_KEY_V2]: capabilities } });
}

/** The extension's answer to a client that asks after tasks without declaring it: -32021, naming what is missing. */
export function requireTasks(envelope: unknown): void {
  if (!declaresTasks(envelope)) throw missingTasksCapability();
}

/** -32021 naming the extension in `data.requiredCapabilities`, so the client can tell what to declare (tasks/* and a task subscriptions/listen alike). */
export function missingTasksCapability(): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID_V2]: {} } } },
    "Missing required client capability: the tasks extension (io.modelcontextprotocol/tasks)",
  );
}

/** tasks/get: the task now, with the tool's result once it is done (or the error, had it failed). */
export async function getTask(caller: TaskCaller, taskId: string): Promise<GetTaskResultV2> {
  const row = await taskOf(caller, taskId, "retrieve");
  return { ...(await viewTask(caller, row)), resultType: "complete" } as GetTaskResultV2;
}

/**
 * tasks/cancel: an import no worker has started is cancelled — its record ends `failed` with the
 * error `cancelled`, no note is made, and the task says `cancelled`; an ask still working is
 * cancelled and its answer, when it comes, is dropped. A running import, a graph build and a
 * finished task go on as they are: cancellation is cooperative, so the request is acknowledged
 * all the same and `tasks/get` tells what happened.
 */
export async function cancelTask(caller: TaskCaller, taskId: string): Promise<Acknowledgement> {
  const row = await taskOf(caller, taskId, "cancel");
  if (row.status !== "working") return { resultType: "complete" };
  if (row.tool === "import") {
    const task = await cancelPendingTask({ ctx: { db: caller.db, userId: row.userId, changes: caller.changes, files: caller.files }, input: { id: row.recordId! } }).catch((error: unknown) => {
      // A record gone is what tasks/get reports; there is nothing left to cancel.
      if (error instanceof NotFoundError) return null;
      throw error;
    });
    if (task?.status === "failed" && task.error === CANCELLED) await endTask(caller.db, row.id, { status: "cancelled", statusMessage: "Cancelled before it started: no note was made" });
  } else if (row.tool === "ask") {
    await endTask(caller.db, row.id, { status: "cancelled", statusMessage: "Cancelled: the answer is not kept" });
  }
  return { resultType: "complete" };
}

/** tasks/update: these tasks never wait for input, so there is nothing outstanding to answer — the responses are ignored, as the extension says. */
export async function updateTask(caller: TaskCaller, taskId: string): Promise<Acknowledgement> {
  await taskOf(caller, taskId, "update");
  return { resultType: "complete" };
}

/**
 * The caller's task: the id must be one of this user's, not yet expired, and the token must hold
 * the scope of the operation that reads the same record. Anything else is the extension's
 * invalid-params error — another user's task is simply not found.
 */
async function taskOf(caller: TaskCaller, taskId: string, verb: "retrieve" | "cancel" | "update"): Promise<TaskRow> {
  const row = await findTask(caller.db, caller.authenticated.user.id, taskId);
  if (!row) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Failed to ${verb} task: Task not found`);
  if (row.expiresAt < Date.now()) {
    await deleteTask(caller.db, row.id);
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Failed to ${verb} task: Task has expired`);
  }
  const { access } = TASK_TOOLS[row.tool];
  if (!allows(caller.authenticated.credential, access)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Failed to ${verb} task: This token lacks the scope ${access}`);
  return row;
}
