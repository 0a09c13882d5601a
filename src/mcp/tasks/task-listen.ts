import { PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server";
import { declaresTasks, missingTasksCapability } from "./task-requests";

/** The revisions with `subscriptions/listen` that the SDK serves (it exports no list of them): the one the extension is written on. */
const LISTEN_REVISIONS: readonly unknown[] = ["2026-07-28"];

/**
 * A `subscriptions/listen` that asks for `notifications/tasks` (`params.notifications.taskIds`)
 * from a client that did not declare the Tasks extension on that request is refused with the
 * extension's -32021, naming it — a MUST of the extension ("Task Status Notifications", and
 * "Error Handling": "Servers MUST return this error for non-declaring clients requesting task
 * notifications on subscriptions/listen"). The SDK serves `subscriptions/listen` itself, before
 * any handler of ours, so the refusal is made before the request reaches it; a client that did
 * declare the extension is acknowledged by the SDK with no task ids: tasks here are polled, and
 * pushing their status is a MAY.
 *
 * Only a request the SDK would otherwise serve is judged here — its `Mcp-Method` and
 * `MCP-Protocol-Version` headers agree with its body, at a revision served — so that a request
 * the SDK refuses for its headers (-32020) or its revision (400) still is.
 */
export function refuseUndeclaredTaskListen(request: Request, body: unknown): Response | undefined {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return undefined;
  const { id, method, params } = body as { id?: unknown; method?: unknown; params?: { _meta?: Record<string, unknown>; notifications?: { taskIds?: unknown } } };
  if (method !== "subscriptions/listen" || request.headers.get("mcp-method") !== method) return undefined;
  const revision = params?._meta?.[PROTOCOL_VERSION_META_KEY];
  if (!LISTEN_REVISIONS.includes(revision) || request.headers.get("mcp-protocol-version") !== revision) return undefined;
  if (params?.notifications?.taskIds === undefined || declaresTasks(params._meta)) return undefined;
  const error = missingTasksCapability();
  // 400, as the SDK answers its own -32021 (SEP-2575's ladder).
  return Response.json({ jsonrpc: "2.0", error: { code: error.code, message: error.message, data: error.data }, id: typeof id === "string" || typeof id === "number" ? id : null }, { status: 400 });
}
