import type { Server, ServerContext } from "@modelcontextprotocol/server";
import { CancelTaskRequestV2Schema, GetTaskRequestV2Schema, TASKS_EXTENSION_ID_V2, UpdateTaskRequestV2Schema } from "@modelcontextprotocol/ext-tasks/core/v2";
import { callerOf } from "../caller";
import type { McpExtension } from "../extension";
import { startToolTask } from "./start-task";
import { cancelTask, declaresTasks, getTask, requireTasks, updateTask } from "./task-requests";
import { isTaskTool } from "./task-tools";

/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`, MCP 2026-07-28), server side: the SDK
 * has none, so it is built here on the extension's own schemas (`@modelcontextprotocol/ext-tasks`).
 * A client that declares it in a request's capabilities gets `import`, `build_graph` and `ask`
 * answered with a task, then follows it with `tasks/get` and may `tasks/cancel` it; without the
 * declaration nothing changes. There is no `tasks/list` or `tasks/result` in this revision: the
 * SDK answers both "method not found".
 */
// Derived once: each request's server gets the handlers again, and a Zod `pick` costs 4–8 µs.
const UPDATE_PARAMS = UpdateTaskRequestV2Schema.shape.params.pick({ taskId: true });

export const tasksExtension: McpExtension = {
  id: TASKS_EXTENSION_ID_V2,
  callTool: (call, run) => {
    const name = call.tool.spec.name;
    if (!isTaskTool(name) || !declaresTasks(call.ctx.mcpReq.envelope)) return run();
    return startToolTask(call.caller, name, call.arguments, run);
  },
  install: (server: Server) => {
    // Custom-schema handlers: the SDK serves `tasks/get` and `tasks/cancel` on 2026-07-28 only when registered this way (the extension re-uses the names).
    server.setRequestHandler("tasks/get", { params: GetTaskRequestV2Schema.shape.params }, (params, ctx: ServerContext) => {
      requireTasks(ctx.mcpReq.envelope);
      return getTask(callerOf(ctx), params.taskId);
    });
    server.setRequestHandler("tasks/cancel", { params: CancelTaskRequestV2Schema.shape.params }, (params, ctx: ServerContext) => {
      requireTasks(ctx.mcpReq.envelope);
      return cancelTask(callerOf(ctx), params.taskId);
    });
    // The SDK lifts `inputResponses` out of a request's params (ctx.mcpReq.inputResponses); there are never any outstanding here.
    server.setRequestHandler("tasks/update", { params: UPDATE_PARAMS }, (params, ctx: ServerContext) => {
      requireTasks(ctx.mcpReq.envelope);
      return updateTask(callerOf(ctx), params.taskId);
    });
  },
};
