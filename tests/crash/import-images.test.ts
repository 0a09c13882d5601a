// kill -9 of the whole service while imports are storing their pictures (bytes half-written, one
// import already done), then a restart on the same data directory: every import completes, every
// file row is one a note refers to, every row's bytes are whole, and no temporary or unclaimed
// file is left. (Rows pending for a task that dies before its note: tests/modules/files/pending-files.test.ts.)
import { afterAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createClient } from "@libsql/client";
import { Api } from "../support/api";
import { imageBytes } from "../support/images";
import { serviceDataDirForThisFile, startServiceProcess, type ServiceProcess } from "../support/service-process";
import { until } from "../support/until";

const IMPORTS = 3;
const PICTURES_PER_IMPORT = 8;
const PICTURE_BYTES = 200_000;
const CHUNKS = 10;
const DEADLINE_MS = 90_000;

let slow = true;
let inFlight = 0;
// Pictures trickle out chunk by chunk while `slow`, so the kill lands with files half-written.
const host = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    const name = new URL(request.url).pathname.slice(1);
    // Two imports share a picture: one file per user, claimed by both notes.
    const seed = name.endsWith("-1.png") ? 1000 : [...name].reduce((sum, char) => sum * 31 + char.charCodeAt(0), 7) % 100_000;
    const bytes = imageBytes("png", PICTURE_BYTES, seed);
    // The first import's pictures come at once, so it is done before the kill.
    if (!slow || name.startsWith("post1-")) return new Response(bytes, { headers: { "content-type": "image/png" } });
    let sent = 0;
    inFlight++;
    const step = Math.ceil(bytes.length / CHUNKS);
    const stream = new ReadableStream({
      async pull(controller) {
        if (sent >= bytes.length) {
          inFlight--;
          controller.close();
          return;
        }
        await Bun.sleep(150);
        controller.enqueue(bytes.slice(sent, sent + step));
        sent += step;
      },
      cancel() {
        inFlight--;
      },
    });
    return new Response(stream, { headers: { "content-type": "image/png" } });
  },
});
const origin = `http://127.0.0.1:${host.port}`;

const dataDir = serviceDataDirForThisFile("rhizome-crash-images-");
let service: ServiceProcess | undefined;
afterAll(() => host.stop(true));

const dbClient = () => createClient({ url: `file:${path.join(dataDir, "rhizome.db")}` });

test(
  "after kill -9 while pictures are being stored and a restart: no orphan rows, no half files",
  async () => {
    const environment = { IMPORT_ALLOW_PRIVATE_NETWORKS: "true", WORKER_CONCURRENCY: "4" };
    service = await startServiceProcess({ dataDir, environment });
    const { api } = await new Api(service.url).newUser("crash");
    for (let i = 1; i <= IMPORTS; i++) {
      const pictures = Array.from({ length: PICTURES_PER_IMPORT }, (_, n) => `<p><img src="${origin}/post${i}-${n + 1}.png" alt="p${n + 1}"></p>`).join("");
      const content = `<article><h1>Post ${i}</h1><p>An article whose pictures matter more than its words, long enough to be one.</p>${pictures}</article>`;
      expect((await api.post("/api/tasks", { platform: "web", content })).status).toBe(201);
    }

    // One import done with its pictures, the others' mid-transfer: then the power goes.
    const watcher = dbClient();
    await until(
      async () => {
        const done = Number((await watcher.execute("select count(*) as n from import_tasks where status = 'completed'")).rows[0]!.n);
        const tmp = path.join(dataDir, "files", "tmp");
        const writing = fs.existsSync(tmp) ? fs.readdirSync(tmp).length : 0;
        return { done, writing, inFlight };
      },
      { timeoutMs: DEADLINE_MS, intervalMs: 50, what: "one import done with more pictures in flight", done: ({ done, writing, inFlight }) => done >= 1 && writing > 0 && inFlight > 0 },
    );
    watcher.close();
    await service.kill();
    const temps = fs.readdirSync(path.join(dataDir, "files", "tmp"));
    expect(temps.length).toBeGreaterThan(0); // half-written pictures were cut off

    slow = false;
    service = await startServiceProcess({ dataDir, environment });
    const again = new Api(service.url, api.token);
    type Task = { status: string; note_id: number | null; failures: unknown[] };
    const tasks = await until(async (): Promise<Task[]> => (await again.get("/api/tasks?size=100")).body.items, {
      timeoutMs: DEADLINE_MS,
      intervalMs: 50,
      what: "every import finished after the restart",
      done: (tasks) => tasks.every((task) => task.status === "completed" || task.status === "failed"),
    });
    expect(tasks.map((task) => [task.status, task.failures])).toEqual(Array.from({ length: IMPORTS }, () => ["completed", []]));

    // Every picture of every note is a stored file.
    const referenced = new Set<number>();
    for (const task of tasks) {
      const note = (await again.get(`/api/notes/${task.note_id}`)).body;
      expect(note.content).not.toContain(origin);
      for (const match of note.content.matchAll(/\/api\/files\/(\d+)/g)) referenced.add(Number(match[1]));
    }
    expect(referenced.size).toBe(IMPORTS * PICTURES_PER_IMPORT - (IMPORTS - 1));

    const db = dbClient();
    const rows = (await db.execute("select id, sha256, size, pending_task_id from files")).rows.map((row) => ({ ...row }));
    db.close();
    // No orphan rows: each one is a picture a note shows, none still pending.
    expect(rows.map((row) => Number(row.id)).sort((a, b) => a - b)).toEqual([...referenced].sort((a, b) => a - b));
    expect(rows.filter((row) => row.pending_task_id !== null)).toEqual([]);
    // No half files: each row's bytes are whole, and nothing else is on disk.
    const filesDir = path.join(dataDir, "files");
    for (const row of rows) {
      const bytes = fs.readFileSync(path.join(filesDir, String(row.sha256).slice(0, 2), String(row.sha256)));
      expect(bytes.length).toBe(Number(row.size));
      expect(createHash("sha256").update(bytes).digest("hex")).toBe(String(row.sha256));
    }
    const blobs = fs.readdirSync(filesDir).filter((name) => /^[0-9a-f]{2}$/.test(name)).flatMap((dir) => fs.readdirSync(path.join(filesDir, dir)));
    expect(blobs.sort()).toEqual(rows.map((row) => String(row.sha256)).sort());
    expect(fs.readdirSync(path.join(filesDir, "tmp"))).toEqual([]);
  },
  { timeout: 240_000 },
);
