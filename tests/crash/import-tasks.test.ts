// kill -9 of the whole service (its embedded Postgres included) while URL imports are in flight, then a restart on
// the same data directory: every task still ends completed with exactly one note of its own.
import { afterAll, expect, test } from "bun:test";
import { readFixture } from "../support/platform-fixtures";
import { Api } from "../support/api";
import { startPlatformServer } from "../support/platform-server";
import { serviceDataDirForThisFile, startServiceProcess, type ServiceProcess } from "../support/service-process";
import { until } from "../support/until";

const IMPORTS = 40;
const PAGE_DELAY_MS = 1_500;
/** Enough finished before the kill to show some work survived it, few enough that most is still to do. */
const COMPLETED_BEFORE_KILL = 8;
const DEADLINE_MS = 60_000;

interface Task {
  id: number;
  status: "pending" | "running" | "completed" | "failed";
  note_id: number | null;
  error: string | null;
}

const article = readFixture("web", "blog-article.html");
let pagesInFlight = 0;
// A site that answers each page after PAGE_DELAY_MS, so the kill lands with fetches open.
const site = startPlatformServer(async (url) => {
  if (!url.pathname.startsWith("/post-")) return undefined;
  pagesInFlight++;
  try {
    await Bun.sleep(PAGE_DELAY_MS);
  } finally {
    pagesInFlight--;
  }
  // Each post its own title and canonical address: the same address would be one source, re-imported into one note.
  const page = article.replace("<title>", `<title>${url.pathname.slice(1)}: `).replace('href="/2025/03/sqlite-is-enough/"', `href="${url.pathname}"`);
  return new Response(page, {
    headers: { "content-type": "text/html; charset=utf-8" },
  });
});

const dataDir = serviceDataDirForThisFile("rhizome-crash-imports-");
let service: ServiceProcess | undefined;
afterAll(() => site.stop());

async function listTasks(api: Api): Promise<Task[]> {
  const response = await api.get(`/api/tasks?size=100`);
  expect(response.status).toBe(200);
  return response.body.items;
}

test(
  "after kill -9 mid-import and a restart, every task completes with exactly one note",
  async () => {
    service = await startServiceProcess({ dataDir, environment: { IMPORT_ALLOW_PRIVATE_NETWORKS: "true", WORKER_CONCURRENCY: "8" } });
    const { api } = await new Api(service.url).newUser("crash");
    for (let i = 1; i <= IMPORTS; i++) {
      const created = await api.post("/api/tasks", { platform: "web", url: `${site.origin}/blog.example/post-${i}` });
      expect(created.status).toBe(201);
    }

    const before = await until(() => listTasks(api), {
      timeoutMs: DEADLINE_MS,
      intervalMs: 50,
      what: `${COMPLETED_BEFORE_KILL} imports completed with more in flight`,
      done: (tasks) => tasks.filter((task) => task.status === "completed").length >= COMPLETED_BEFORE_KILL && pagesInFlight > 0,
    });
    await service.kill();
    const completedBeforeKill = before.filter((task) => task.status === "completed").length;
    expect(completedBeforeKill).toBeLessThan(IMPORTS);

    service = await startServiceProcess({ dataDir, environment: { IMPORT_ALLOW_PRIVATE_NETWORKS: "true", WORKER_CONCURRENCY: "8" } });
    // Sessions live in the notes database, so the token from before the crash still works.
    const again = new Api(service.url, api.token);
    const tasks = await until(() => listTasks(again), {
      timeoutMs: DEADLINE_MS,
      intervalMs: 50,
      what: "every import finished after the restart",
      done: (tasks) => tasks.every((task) => task.status === "completed" || task.status === "failed"),
    });

    expect(tasks).toHaveLength(IMPORTS);
    expect(tasks.filter((task) => task.status !== "completed")).toEqual([]);
    const noteIds = tasks.map((task) => task.note_id);
    expect(new Set(noteIds).size).toBe(IMPORTS);
    const notes = await again.get("/api/notes?size=100");
    expect(notes.body.total).toBe(IMPORTS);
    const byNumber = (a: number, b: number) => a - b;
    // The fetches the kill cut off were made again.
    expect(site.seen.length).toBeGreaterThan(IMPORTS);
    expect(notes.body.items.map((note: { id: number }) => note.id).sort(byNumber)).toEqual((noteIds as number[]).sort(byNumber));
  },
  { timeout: 240_000 },
);
