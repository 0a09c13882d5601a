// `npm run bench:archive`: imports a 10,000-note Markdown vault (~30 MB, nested folders, front
// matter, inline tags, wikilinks) through POST /api/tasks/archive into one service process
// (ROLE=all: the API and the worker, with its embedded Postgres). Prints notes/s from upload to
// completion, the service process's CPU seconds for it (what it costs on a shared machine) and its
// peak RSS growth over its idle state, with PASS/FAIL per target.
import path from "node:path";
import { zipSync, strToU8 } from "fflate";
import { benchScratch, cpuSeconds, loadAverage, residentBytes, watchResidentMemory } from "./server-process";
import { registerAndLogin, type Session } from "./tasks-client";

const NOTES = Number(process.env.BENCH_ARCHIVE_NOTES ?? 10_000);
const WARMUP_NOTES = 200;
const TARGET = { notesPerSecond: 1_000, rssGrowthMiB: 100 };
const MiB = 1024 * 1024;

const scratch = benchScratch("rhizome-bench-archive-");
const progress = (message: string) => console.error(`[bench:archive] ${message}`);

/** A vault of `count` notes of ~3 KB: Obsidian-style front matter, headings, #tags and [[links]]. */
function buildVault(count: number, seed: number): Uint8Array {
  const words = "graph note idea link vault archive import tag heading paragraph concept system memory design review".split(" ");
  const files: Record<string, Uint8Array> = {};
  for (let index = 0; index < count; index++) {
    const paragraph = (n: number) =>
      Array.from({ length: 60 }, (_, i) => words[(index * 7 + n * 13 + i * (seed + 3)) % words.length]).join(" ") + ".";
    const body = [
      `# Note ${seed}-${index}`,
      "",
      ...Array.from({ length: 7 }, (_, n) => paragraph(n)),
      "",
      `Links: [[Note ${seed}-${(index + 1) % count}]] and ![[image-${index % 50}.png]] #area/topic${index % 20} #bench`,
    ].join("\n");
    const frontMatter = `---\ntitle: Note ${seed}-${index}\ntags: [imported, batch${index % 10}]\naliases: [N${index}]\ncreated: 2024-0${1 + (index % 9)}-1${index % 10}\n---\n`;
    files[`vault${seed}/folder${index % 25}/sub${index % 4}/note-${index}.md`] = strToU8(frontMatter + body);
  }
  return zipSync(files, { level: 6 });
}

async function importVault(session: Session, zip: Uint8Array): Promise<{ seconds: number; counts: unknown }> {
  const started = performance.now();
  const created = await fetch(`${session.baseUrl}/api/tasks/archive`, {
    method: "POST",
    headers: { authorization: `Bearer ${session.token}`, "content-type": "application/zip" },
    body: zip as BodyInit,
  });
  if (created.status !== 201) throw new Error(`upload answered ${created.status}: ${await created.text()}`);
  const { id } = (await created.json()) as { id: number };
  for (;;) {
    const task = (await (await fetch(`${session.baseUrl}/api/tasks/${id}`, { headers: { authorization: `Bearer ${session.token}` } })).json()) as {
      status: string;
      error: string | null;
      counts: unknown;
    };
    if (task.status === "failed") throw new Error(`the archive task failed: ${task.error}`);
    if (task.status === "completed") return { seconds: (performance.now() - started) / 1000, counts: task.counts };
    await Bun.sleep(100);
  }
}

async function main() {
  const environment = { ROLE: "all", DATA_DIR: path.join(scratch.workDir, "service"), DATABASE_URL: "", LIBSQL_URL: "" };
  const service = await scratch.start("service", "service-server.ts", environment);
  progress(`service pid ${service.pid} on ${service.url}`);
  const session = await registerAndLogin(service.url, "bench_archive");
  const vault = buildVault(NOTES, 1);
  progress(`vault: ${NOTES} notes, ${(vault.length / MiB).toFixed(1)} MiB zipped`);
  // The first archive loads the archive code and warms the JIT, outside the measurement.
  await importVault(session, buildVault(WARMUP_NOTES, 0));
  Bun.gc(true);
  await Bun.sleep(2_000);
  const idle = residentBytes(service.pid);
  const watcher = watchResidentMemory(service.pid, 50);
  const [cpuBefore, load] = [cpuSeconds(service.pid), loadAverage()];
  const { seconds, counts } = await importVault(session, vault);
  const cpu = cpuSeconds(service.pid) - cpuBefore;
  const peak = watcher.stop();
  const notesPerSecond = NOTES / seconds;
  const growthMiB = (peak - idle) / MiB;
  console.log(`archive import: ${NOTES} notes in ${seconds.toFixed(2)} s = ${notesPerSecond.toFixed(0)} notes/s; counts ${JSON.stringify(counts)}`);
  console.log(`service CPU: ${cpu.toFixed(2)} s = ${((cpu * 1000) / NOTES).toFixed(2)} ms a note (${(NOTES / cpu).toFixed(0)} notes a CPU-second); load average ${load.toFixed(1)} at the start`);
  console.log(`service (API + worker) RSS: idle ${(idle / MiB).toFixed(1)} MiB, peak ${(peak / MiB).toFixed(1)} MiB, growth ${growthMiB.toFixed(1)} MiB`);
  console.log(`${notesPerSecond >= TARGET.notesPerSecond ? "PASS" : "FAIL"} throughput ≥ ${TARGET.notesPerSecond} notes/s`);
  console.log(`${growthMiB <= TARGET.rssGrowthMiB ? "PASS" : "FAIL"} peak RSS growth ≤ ${TARGET.rssGrowthMiB} MiB`);
}

try {
  await main();
} finally {
  await scratch.cleanUp();
}
