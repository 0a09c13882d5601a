import type { Database } from "../../db/client";
import type { ChangePublisher } from "../events/change";
import type { FileStorage } from "../files/blob-store";
import { getTask } from "./list-tasks";
import { markTaskFailed } from "./run-import";
import { PLATFORMS, type TaskRecord } from "./schemas";

/** The error a cancelled import ends with. */
export const CANCELLED = "cancelled";

/**
 * Cancels the user's import of a page or pasted content if no worker has taken it up yet: it ends
 * `failed` with the error `cancelled`, and no note is made (its job, should it run after all,
 * finds the task finished: runImportTask claims only an unfinished task). A task already running
 * or finished is left as it is — a running import may be storing pictures and writing its note —
 * and so is an upload's (archive, recording, document), whose file its own job clears away.
 * Answers the task as it stands afterwards; another user's task is not found.
 */
export async function cancelPendingTask({
  ctx,
  input,
}: {
  ctx: { db: Database; userId: number; changes: ChangePublisher; files?: FileStorage };
  input: { id: number };
}): Promise<TaskRecord> {
  const task = await getTask({ ctx, input });
  if (task.status !== "pending" || !(PLATFORMS as readonly string[]).includes(task.platform)) return task;
  await markTaskFailed(ctx.db, task.id, CANCELLED, ctx.changes, ctx.files, ["pending"]);
  return getTask({ ctx, input });
}
