import type { Api } from "./api";
import { until } from "./until";

/** Waits until every one of the user's notes is embedded (the status says so); returns that status. */
export async function awaitEmbedded(user: Api) {
  return until(
    async () => {
      const status = (await user.get("/api/search/status")).body;
      return status.pending === 0 && status.mode === "hybrid" ? status : null;
    },
    { what: "the user's notes to be embedded", timeoutMs: 30_000, intervalMs: 100 },
  );
}
