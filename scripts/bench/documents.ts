// `npm run bench:documents`: a 300-page text PDF (printed by Chromium from generated HTML: English
// and Chinese paragraphs, a running header and a page-number footer) uploaded to one service process
// (ROLE=all: API + worker, embedded Postgres, libSQL file) through POST /api/tasks/document, timed
// from the upload's first byte to the task's completion (the note written), with the service's RSS
// sampled throughout against its idle state after a warm-up import. Baseline, measured in the same
// run on the same file: PDF.js (through unpdf, as the service uses it) reading every page's text in
// this process, the least any PDF import has to do. OCR is measured by its own benchmark.
import fs from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";
import { benchScratch, residentBytes, watchResidentMemory } from "./server-process";
import { registerAndLogin, type Session } from "./tasks-client";

const PAGES = 300;
const ROUNDS = Number(process.env.BENCH_DOCUMENTS_ROUNDS ?? 3);
const MiB = 1024 * 1024;
const TARGET = { seconds: 10, growthMiB: 200 };
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

const scratch = benchScratch("rhizome-bench-documents-");
const progress = (message: string) => console.error(`[bench:documents] ${message}`);

const WORDS = "the of and a to in is was that for it with as his on be at by had are but from or have an they which one you were all we her she there would their will when who him been has more if no out so said what up its about than into them can only other new some could time these two may then do first any my now such like our over man me even most made after also did many before must through back years where much your way well down should because each just those people how too little state good very make world still own see men work long get here between both life being under never day same another know while last might us great old year off come since against go came right used take three".split(" ");
const HANZI = "我们今天讨论的是文档导入功能它可以把文件转换成笔记并且保留页码信息方便以后查找和引用这是第二句话用来测试换行知识图谱问答搜索".split("");

/** A seeded generator, so every run prints the same document. */
function random(seed: number) {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/** `pages` pages of prose, each its own (a page break after it): four English paragraphs and a Chinese one, a heading every twelfth page. */
function documentHtml(pages: number): string {
  const next = random(42);
  const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)]!;
  const english = () => {
    const words = Array.from({ length: 60 + Math.floor(next() * 30) }, () => pick(WORDS));
    return `${words[0]![0]!.toUpperCase()}${words.join(" ").slice(1)}.`;
  };
  const chinese = () => `${Array.from({ length: 90 }, () => pick(HANZI)).join("")}。`;
  const sections = Array.from({ length: pages }, (_, index) => {
    const heading = index % 12 === 0 ? `<h2>Section ${index / 12 + 1}</h2>` : "";
    return `<section style="break-after:page">${heading}<p>${english()}</p><p>${english()}</p><p>${chinese()}</p><p>${english()}</p><p>${english()}</p></section>`;
  });
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>The Benchmark Book</title><style>body{font:11pt serif} p{margin:0 0 8pt}</style></head><body>${sections.join("")}</body></html>`;
}

async function printPdf(html: string, file: string): Promise<number> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--headless", "--no-sandbox", "--disable-gpu"] });
  try {
    const page = await browser.newPage();
    await page.setContent(html);
    const template = (text: string) => `<div style="font-size:8px;width:100%;text-align:center">${text}</div>`;
    await page.pdf({
      path: file,
      format: "A4",
      displayHeaderFooter: true,
      headerTemplate: template("The Benchmark Book"),
      footerTemplate: template('Page <span class="pageNumber"></span> of <span class="totalPages"></span>'),
      margin: { top: "2cm", bottom: "2cm", left: "2cm", right: "2cm" },
    });
  } finally {
    await browser.close();
  }
  const { getDocumentProxy } = await import("unpdf");
  const pdf = await getDocumentProxy(new Uint8Array(fs.readFileSync(file)));
  const pages = pdf.numPages;
  await pdf.destroy();
  return pages;
}

/** The baseline: every page's text read by PDF.js (unpdf) in a process of its own, cold and then warm. */
function rawExtraction(file: string): { cold: number; warm: number; characters: number } {
  const run = Bun.spawnSync([process.execPath, "run", path.join(import.meta.dir, "pdf-extract.ts"), file], { stderr: "inherit" });
  return JSON.parse(run.stdout.toString().trim()) as { cold: number; warm: number; characters: number };
}

/** Uploads the PDF and waits for its task; seconds from the upload to the completed task, and the note. */
async function importPdf(session: Session, bytes: Uint8Array<ArrayBuffer>, title: string): Promise<{ seconds: number; content: string; message: string }> {
  const headers = { authorization: `Bearer ${session.token}` };
  const started = performance.now();
  const created = await fetch(`${session.baseUrl}/api/tasks/document?title=${encodeURIComponent(title)}`, { method: "POST", headers: { ...headers, "content-type": "application/pdf" }, body: bytes });
  if (created.status !== 201) throw new Error(`upload: ${created.status} ${await created.text()}`);
  const { id } = (await created.json()) as { id: number };
  for (;;) {
    const task = (await (await fetch(`${session.baseUrl}/api/tasks/${id}`, { headers })).json()) as { status: string; error: string | null; note_id: number | null; message: string };
    if (task.status === "failed") throw new Error(`the import failed: ${task.error}`);
    if (task.status === "completed") {
      const seconds = (performance.now() - started) / 1000;
      const note = (await (await fetch(`${session.baseUrl}/api/notes/${task.note_id}`, { headers })).json()) as { content: string };
      return { seconds, content: note.content, message: task.message };
    }
    await Bun.sleep(25);
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main() {
  const file = path.join(scratch.workDir, "book.pdf");
  const pages = await printPdf(documentHtml(PAGES), file);
  const bytes = new Uint8Array(fs.readFileSync(file));
  progress(`printed ${pages} pages, ${(bytes.length / MiB).toFixed(2)} MiB`);
  const warmFile = path.join(scratch.workDir, "warm.pdf");
  await printPdf(documentHtml(3), warmFile);

  const environment = { ROLE: "all", DATA_DIR: path.join(scratch.workDir, "service"), DATABASE_URL: "", LIBSQL_URL: "" };
  const service = await scratch.start("service", "service-server.ts", environment);
  progress(`service pid ${service.pid} on ${service.url}`);
  const session = await registerAndLogin(service.url, "bench_documents");
  // A short PDF first loads the reader (PDF.js) and warms the JIT, outside the measurement.
  await importPdf(session, new Uint8Array(fs.readFileSync(warmFile)), "Warm-up");
  await Bun.sleep(2_000);
  const idle = residentBytes(service.pid);

  const times: number[] = [];
  let peak = idle;
  let markers = 0;
  let message = "";
  for (let round = 1; round <= ROUNDS; round++) {
    const watcher = watchResidentMemory(service.pid, 20);
    const result = await importPdf(session, bytes, `Benchmark book, round ${round}`);
    peak = Math.max(peak, watcher.stop());
    markers = (result.content.match(/^\[p\. \d+\]$/gm) ?? []).length;
    message = result.message;
    if (/Page \d+ of \d+|The Benchmark Book/.test(result.content)) throw new Error("the running header or footer was left in the note");
    times.push(result.seconds);
    progress(`round ${round}: ${result.seconds.toFixed(3)} s, ${markers} page markers, RSS peak ${((peak - idle) / MiB).toFixed(1)} MiB over idle`);
  }
  const baseline = rawExtraction(file);
  const seconds = median(times);
  const growthMiB = (peak - idle) / MiB;
  console.log(`${pages}-page text PDF (${(bytes.length / MiB).toFixed(2)} MiB, ${baseline.characters.toLocaleString("en")} characters) from upload to note: median ${seconds.toFixed(3)} s over ${ROUNDS} rounds (${times.map((s) => s.toFixed(3)).join(", ")}); ${markers} of ${pages} pages in the note; task message "${message}"`);
  console.log(
    `baseline (PDF.js through unpdf reading every page's text, in a process of its own): cold ${baseline.cold.toFixed(3)} s (as the service's reading thread is, new for each document), warm ${baseline.warm.toFixed(3)} s; import / cold baseline = ${(seconds / baseline.cold).toFixed(2)}×, / warm = ${(seconds / baseline.warm).toFixed(2)}×`,
  );
  console.log(`service (API + worker) RSS: idle ${(idle / MiB).toFixed(1)} MiB, peak ${(peak / MiB).toFixed(1)} MiB, growth ${growthMiB.toFixed(1)} MiB`);
  console.log(`${seconds <= TARGET.seconds ? "PASS" : "FAIL"} a ${pages}-page text PDF becomes a note in ≤ ${TARGET.seconds} s (${seconds.toFixed(2)} s)`);
  console.log(`${growthMiB <= TARGET.growthMiB ? "PASS" : "FAIL"} the service's RSS grows by ≤ ${TARGET.growthMiB} MiB (${growthMiB.toFixed(1)} MiB)`);
  if (markers !== pages) console.log(`FAIL every page is in the note (${markers} of ${pages})`);
}

try {
  await main();
} finally {
  await scratch.cleanUp();
}
