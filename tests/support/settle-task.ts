import type { Api } from "./api";
import { until } from "./until";

/** Polls an import task until it completes or fails, and returns it; `onPoll` sees every state read on the way. */
export function settleTask(client: Api, id: number, { timeoutMs = 30_000, onPoll }: { timeoutMs?: number; onPoll?: (task: any) => void } = {}): Promise<any> {
  return until(
    async () => {
      const { body } = await client.get(`/api/tasks/${id}`);
      onPoll?.(body);
      return body;
    },
    { timeoutMs, what: `task ${id} to complete or fail`, done: (task) => task.status === "completed" || task.status === "failed" },
  );
}
