import type { CallToolResult } from "@modelcontextprotocol/server";
import type { CreateTaskResultV2 } from "@modelcontextprotocol/ext-tasks/core/v2";
import { log } from "../../log";
import { askInput } from "../../modules/ask/schemas";
import { allows } from "../../modules/tokens/credential";
import type { Caller as TaskCaller } from "../caller";
import { endTask, insertTask } from "./task-store";
import type { TaskTool } from "./task-tools";
import { viewTask } from "./task-view";

/**
 * Calls one of the task tools for a client that declared the Tasks extension: the answer is a
 * task (`resultType: "task"`) once there is work to follow, else the tool's own answer.
 * `import` and `build_graph` run as they always do — they only record the work and queue its
 * job, so a refusal (bad input, a missing scope, a build already running) or a dry run comes
 * back as today — and their task follows the record they made. An `ask` is started here and
 * answered into the task's row in the background. Either way the row exists before the answer
 * does, so a `tasks/get` right after it finds the task (as the extension requires).
 */
export async function startToolTask(caller: TaskCaller, tool: TaskTool, args: Record<string, unknown> | undefined, run: () => Promise<CallToolResult>): Promise<CallToolResult | CreateTaskResultV2> {
  if (tool === "ask") return startAsk(caller, args, run);
  if (tool === "build_graph" && args?.dry_run === true) return run();
  const answer = await run();
  const structured = answer.structuredContent as { id?: unknown; build_id?: unknown } | undefined;
  const recordId = tool === "import" ? structured?.id : structured?.build_id;
  if (answer.isError || typeof recordId !== "number") return answer;
  const row = await insertTask(caller.db, { userId: caller.authenticated.user.id, tool, recordId });
  return createdTask(caller, row);
}

/**
 * An ask the tool would refuse at once (no `ask` scope, no question) is answered as today;
 * otherwise its task starts `working` and the tool's result lands in the row when it comes.
 */
async function startAsk(caller: TaskCaller, args: Record<string, unknown> | undefined, run: () => Promise<CallToolResult>): Promise<CallToolResult | CreateTaskResultV2> {
  if (!allows(caller.authenticated.credential, "ask") || !askInput.safeParse(args ?? {}).success) return run();
  const row = await insertTask(caller.db, { userId: caller.authenticated.user.id, tool: "ask", recordId: null, statusMessage: "Finding the passages that answer the question" });
  void run()
    .then((result) => endTask(caller.db, row.id, { status: "completed", statusMessage: result.isError ? "The question could not be answered" : "Answered", result }))
    .catch(async (error: unknown) => {
      log.error(`MCP task ${row.id} (ask) failed unexpectedly`, error);
      const failure = { code: -32603, message: "The question could not be answered: an internal error" };
      await endTask(caller.db, row.id, { status: "failed", statusMessage: failure.message, error: failure }).catch((cause: unknown) => log.error(`MCP task ${row.id} could not be ended`, cause));
    });
  return createdTask(caller, row);
}

/** The task as first seen: its state now, without the result or error `tasks/get` would add. */
async function createdTask(caller: TaskCaller, row: Parameters<typeof viewTask>[1]): Promise<CreateTaskResultV2> {
  const { result: _result, error: _error, inputRequests: _input, ...task } = (await viewTask(caller, row)) as Record<string, unknown>;
  return { ...(task as Omit<CreateTaskResultV2, "resultType">), resultType: "task" };
}
