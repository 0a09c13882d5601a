// `npm run bench:files`: a web page with 30 pictures of 300 KB on a loopback image host, imported
// (pasted HTML, platform web) into one service process (ROLE=all: API + worker, embedded Postgres,
// libSQL file): time from POST /api/tasks to completion, and the service's peak RSS over its idle
// state. Baseline, measured in the same run against the same host: a bare client downloading the
// same 30 pictures 4 at a time, writing and fsyncing each (the transfer and the durable write the
// import cannot avoid). The import adds the task and its job, the page parse, the guarded fetcher,
// SHA-256, the link into place with its directory fsync, the rows, progress and the note.
import fs from "node:fs";
import path from "node:path";
import { benchScratch, residentBytes, watchResidentMemory } from "./server-process";
import { registerAndLogin, type Session } from "./tasks-client";

const PICTURES = 30;
const PICTURE_BYTES = Number(process.env.BENCH_FILES_PICTURE_KB ?? 300) * 1024;
const ROUNDS = Number(process.env.BENCH_FILES_ROUNDS ?? 5);
const AT_ONCE = 4;
const MiB = 1024 * 1024;
/** Pictures are streamed to disk: the service should grow by well under the page's 9 MB of pictures. */
// A body held whole would grow RSS by its 100 MiB; streamed, growth is garbage the GC has yet to return.
const TARGET = { streamingGrowthMiB: 50, ratio: 3 };

const scratch = benchScratch("rhizome-bench-files-");
const progress = (message: string) => console.error(`[bench:files] ${message}`);

/** Bytes that start as a PNG does (all the service looks at), distinct per round so nothing is deduplicated. */
function picture(round: number, index: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(new ArrayBuffer(PICTURE_BYTES));
  let state = (round * 1000 + index + 1) * 2654435761;
  for (let i = 0; i < bytes.length; i += 4) {
    state = (state * 1103515245 + 12345) >>> 0;
    bytes[i] = state & 255;
    bytes[i + 1] = (state >>> 8) & 255;
    bytes[i + 2] = (state >>> 16) & 255;
    bytes[i + 3] = state >>> 24;
  }
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return bytes;
}

const pictures = new Map<string, Uint8Array<ArrayBuffer>>();
const host = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    const bytes = pictures.get(new URL(request.url).pathname);
    return bytes ? new Response(bytes, { headers: { "content-type": "image/png" } }) : new Response("missing", { status: 404 });
  },
});
const origin = `http://127.0.0.1:${host.port}`;

function pageFor(round: number): { html: string; urls: string[] } {
  const urls: string[] = [];
  for (let index = 0; index < PICTURES; index++) {
    const pathname = `/round${round}/picture-${index}.png`;
    pictures.set(pathname, picture(round, index));
    urls.push(`${origin}${pathname}`);
  }
  const paragraph = (n: number) => `<p>Paragraph ${n} of an article that is mostly its pictures, as a Xiaohongshu post or a WeChat photo essay is.</p>`;
  const body = urls.map((url, n) => `${paragraph(n)}<p><img src="${url}" alt="picture ${n}"></p>`).join("\n");
  return { html: `<!doctype html><html><head><title>Thirty pictures, round ${round}</title></head><body><article><h1>Thirty pictures</h1>${body}</article></body></html>`, urls };
}

async function importPage(session: Session, html: string): Promise<{ seconds: number; stored: number; failures: unknown[] }> {
  const started = performance.now();
  const headers = { authorization: `Bearer ${session.token}`, "content-type": "application/json" };
  const created = await fetch(`${session.baseUrl}/api/tasks`, { method: "POST", headers, body: JSON.stringify({ platform: "web", content: html }) });
  if (created.status !== 201) throw new Error(`POST /api/tasks answered ${created.status}: ${await created.text()}`);
  const { id } = (await created.json()) as { id: number };
  for (;;) {
    const task = (await (await fetch(`${session.baseUrl}/api/tasks/${id}`, { headers })).json()) as { status: string; error: string | null; note_id: number; failures: unknown[] };
    if (task.status === "failed") throw new Error(`the import failed: ${task.error}`);
    if (task.status === "completed") {
      const seconds = (performance.now() - started) / 1000;
      const note = (await (await fetch(`${session.baseUrl}/api/notes/${task.note_id}`, { headers })).json()) as { content: string };
      return { seconds, stored: note.content.match(/\/api\/files\/\d+/g)?.length ?? 0, failures: task.failures };
    }
    await Bun.sleep(20);
  }
}

/** The floor: the same pictures fetched by a bare client, AT_ONCE at a time, each written to a file and fsynced. */
async function downloadBaseline(urls: string[], dir: string): Promise<number> {
  fs.mkdirSync(dir, { recursive: true });
  const started = performance.now();
  const queue = [...urls];
  await Promise.all(
    Array.from({ length: AT_ONCE }, async () => {
      for (let url = queue.shift(); url; url = queue.shift()) {
        const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
        const handle = await fs.promises.open(path.join(dir, path.basename(url)), "w");
        await handle.write(bytes);
        await handle.sync();
        await handle.close();
      }
    }),
  );
  return (performance.now() - started) / 1000;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main() {
  const environment = { ROLE: "all", DATA_DIR: path.join(scratch.workDir, "service"), DATABASE_URL: "", LIBSQL_URL: "", IMPORT_ALLOW_PRIVATE_NETWORKS: "true" };
  const service = await scratch.start("service", "service-server.ts", environment);
  progress(`service pid ${service.pid} on ${service.url}; image host ${origin}`);
  const session = await registerAndLogin(service.url, "bench_files");
  // Round 0 loads the import code and warms the JIT, outside the measurement.
  await importPage(session, pageFor(0).html);
  Bun.gc(true);
  await Bun.sleep(2_000);
  const idle = residentBytes(service.pid);

  const imports: number[] = [];
  const baselines: number[] = [];
  const textOnly: number[] = [];
  let peak = idle;
  let textPeak = idle;
  for (let round = 1; round <= ROUNDS; round++) {
    const page = pageFor(round);
    baselines.push(await downloadBaseline(page.urls, path.join(scratch.workDir, `baseline-${round}`)));
    // The same page without its pictures: what any import costs (task, job, parse, note, polling).
    const textWatcher = watchResidentMemory(service.pid, 20);
    textOnly.push((await importPage(session, page.html.replace(/<img [^>]*>/g, "").replace("Thirty pictures,", "Thirty captions,"))).seconds);
    textPeak = Math.max(textPeak, textWatcher.stop());
    const watcher = watchResidentMemory(service.pid, 20);
    const result = await importPage(session, page.html);
    peak = Math.max(peak, watcher.stop());
    if (result.stored !== PICTURES) throw new Error(`round ${round}: ${result.stored} of ${PICTURES} pictures stored; failures ${JSON.stringify(result.failures)}`);
    imports.push(result.seconds);
    progress(`round ${round}: import ${result.seconds.toFixed(3)} s, text-only import ${textOnly.at(-1)!.toFixed(3)} s, baseline download ${baselines.at(-1)!.toFixed(3)} s`);
  }
  const importSeconds = median(imports);
  const baselineSeconds = median(baselines);
  const ratio = importSeconds / baselineSeconds;
  const growthMiB = (peak - idle) / MiB;
  const total = (PICTURES * PICTURE_BYTES) / MiB;
  console.log(`import of a page with ${PICTURES} pictures of ${PICTURE_BYTES / 1024} KB (${total.toFixed(1)} MiB): median ${importSeconds.toFixed(3)} s over ${ROUNDS} rounds (${imports.map((s) => s.toFixed(3)).join(", ")})`);
  console.log(`baseline (bare client, ${AT_ONCE} at a time, each written and fsynced): median ${baselineSeconds.toFixed(3)} s (${baselines.map((s) => s.toFixed(3)).join(", ")}); import / baseline = ${ratio.toFixed(2)}×`);
  console.log(`the same page without its pictures: median ${median(textOnly).toFixed(3)} s (${textOnly.map((s) => s.toFixed(3)).join(", ")}); the pictures add ${(importSeconds - median(textOnly)).toFixed(3)} s`);
  console.log(`service (API + worker) RSS: idle ${(idle / MiB).toFixed(1)} MiB, peak ${(peak / MiB).toFixed(1)} MiB, growth ${growthMiB.toFixed(1)} MiB (text-only imports: peak growth ${((textPeak - idle) / MiB).toFixed(1)} MiB)`);
  // The service's growth is mostly garbage the GC has not returned yet; whether a body is ever held
  // whole is measured apart, on one body ten times the cap, in a process of its own.
  const streaming = Bun.spawnSync([process.execPath, "run", path.join(import.meta.dir, "files-streaming.ts")], { stderr: "inherit" }).stdout.toString().trim();
  console.log(streaming);
  const streamingGrowth = Number(/peak growth ([\d.]+) MiB/.exec(streaming)?.[1] ?? Number.NaN);
  console.log(`${streamingGrowth <= TARGET.streamingGrowthMiB ? "PASS" : "FAIL"} a 100 MiB body read to disk grows RSS by ≤ ${TARGET.streamingGrowthMiB} MiB (streamed, never held whole)`);
  // Any import pays for its task, job, parse and note (the text-only import); the target is on what the pictures add.
  const addedRatio = (importSeconds - median(textOnly)) / baselineSeconds;
  console.log(`the pictures' share (import − text-only) / baseline = ${addedRatio.toFixed(2)}×`);
  console.log(`${addedRatio <= TARGET.ratio ? "PASS" : "FAIL"} the pictures add ≤ ${TARGET.ratio}× the bare durable download`);
}

try {
  await main();
} finally {
  host.stop(true);
  await scratch.cleanUp();
}
