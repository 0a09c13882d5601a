import type { Api } from "./api";
import { until } from "./until";

/** Polls the graph status until the build is over; returns the last status and every distinct one seen on the way. */
export async function awaitBuild(client: Api, { timeoutMs = 30_000 }: { timeoutMs?: number } = {}): Promise<{ status: any; seen: any[] }> {
  const seen: any[] = [];
  const status = await until(
    async () => {
      const { body } = await client.get("/api/knowledge-graph/status");
      if (JSON.stringify(seen.at(-1)) !== JSON.stringify(body)) seen.push(body);
      return body;
    },
    { timeoutMs, what: "the graph build to end", done: (body) => body.status !== "building" },
  );
  return { status, seen };
}
