// `npm run bench:viewer`: the page in headless Chromium (software WebGL) against the service in its
// own process. The graph view (`/graph`): login → graph drawn (500 nodes) and the 5,000-node view,
// each from a fresh browser context (so the layout is computed, not read from the cache). The notes
// app (`/`), for an account of 10,000 notes: login → the first notes drawn in `Notes`, and a note
// opened from the list → its text drawn. Each beside a baseline measured in the same run: fetching
// the same JSON alone. The installed app offline: a reload's first paint and the kept notes drawn,
// beside the same reload online. Prints the page's bundle size, with and without the service worker.
import fs from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { sql } from "drizzle-orm";
import { openNotesDatabase } from "../../src/db/client";
import { bundleViewer } from "../../src/viewer/bundle";
import { CHROMIUM_ARGS, CHROMIUM_PATH, launchChromium } from "../../tests/support/browser";
import { seedGraph } from "../../tests/support/graph-seed";
import { benchWorkDir, startServerProcess, type ServerProcess } from "./server-process";
import { registerAndLogin } from "./tasks-client";

const NODES = 5000;
const NOTES = 10_000;
/** `BENCH_VIEWER=app` (or `graph`, or `offline`) runs one part only. */
const PARTS = (process.env.BENCH_VIEWER ?? "graph,app,offline").split(",");
const EDGES = 20_000;
const RUNS = 5;
const PASSWORD = "bench-password-123";

const workDir = benchWorkDir("rhizome-bench-viewer-");
fs.chmodSync(workDir, 0o711);
let service: ServerProcess | undefined;
let browser: Browser | undefined;

try {
  await main();
} finally {
  await browser?.close();
  await service?.stop();
  fs.rmSync(workDir, { recursive: true, force: true });
}

async function main() {
  const bundle = await bundleViewer();
  console.log("viewer bundle (Bun.build, minified):");
  let raw = 0;
  let gzip = 0;
  for (const [name, asset] of [["page (HTML)", bundle.page] as const, ...bundle.assets]) {
    raw += asset.body.length;
    gzip += asset.gzip.length;
    console.log(`  ${name.padEnd(18)} ${kb(asset.body.length)} raw  ${kb(asset.gzip.length)} gzip`);
  }
  console.log(`  ${"total".padEnd(18)} ${kb(raw)} raw  ${kb(gzip)} gzip  ${gzip <= 120 * 1024 ? "PASS" : "FAIL"} (target ≤ 120 KB gzip)`);
  // Loaded after the page, by the browser, once: the installed app's worker and manifest, and its icons.
  const extra: [string, { body: Uint8Array; gzip: Uint8Array }][] = [["sw.js", bundle.serviceWorker], ["manifest", bundle.manifest], ...[...bundle.icons].map(([name, icon]) => [name, icon] as [string, typeof icon])];
  for (const [name, asset] of extra) console.log(`  ${name.padEnd(18)} ${kb(asset.body.length)} raw  ${kb(asset.gzip.length)} gzip`);
  const withWorker = gzip + bundle.serviceWorker.gzip.length + bundle.manifest.gzip.length;
  console.log(`  ${"with the worker".padEnd(18)} ${kb(withWorker)} gzip (page, scripts, styles, sw.js and manifest; icons are PNGs)`);

  const dataDir = path.join(workDir, "service");
  service = await startServerProcess("service", "service-server.ts", { ROLE: "all", DATA_DIR: dataDir, DATABASE_URL: "", LIBSQL_URL: "" });
  const session = await registerAndLogin(service.url, "bench_viewer");
  const database = await openNotesDatabase({ url: `file:${path.join(dataDir, "rhizome.db")}` });
  try {
    const seeded = await seedGraph(database.db, session.userId, { nodes: NODES, edges: EDGES, seed: 1 });
    console.log(`seeded ${NODES} nodes, ${seeded.edges} edges, ${seeded.communities} communities`);
  } finally {
    database.close();
  }

  browser = await launchChromium();
  console.log(`Chromium ${browser.version()} (${CHROMIUM_PATH}; ${CHROMIUM_ARGS.filter((arg) => /angle|swiftshader/.test(arg)).join(" ")}), viewport 1280×800, ${RUNS} runs after one warm-up, median (min–max)`);

  const rows: [string, number[], number?][] = [];
  for (const limit of PARTS.includes("graph") ? [500, 5000] : []) {
    const fetchTimes: number[] = [];
    const runs: PageTimes[] = [];
    for (let run = 0; run <= RUNS; run++) {
      const fetched = await timeFetch(service.url, session.token, limit);
      const page = await openAndTime(browser, service.url, limit);
      if (run > 0) {
        fetchTimes.push(fetched);
        runs.push(page);
      }
    }
    rows.push([`baseline: GET /api/knowledge-graph?limit=${limit} + JSON.parse (bun fetch)`, fetchTimes]);
    if (limit === 500) {
      rows.push(["login → 500 nodes drawn", runs.map((times) => times.drawn), 1500]);
      rows.push(["login → 500 nodes laid out (worker FA2 + glide)", runs.map((times) => times.settled)]);
    } else {
      rows.push(["login → 5,000 nodes drawn (500 first, then the control)", runs.map((times) => times.drawn), 4000]);
      rows.push(["  of which: choosing 5,000 → drawn", runs.map((times) => times.drawn - times.chosen)]);
      rows.push(["login → 5,000 nodes laid out", runs.map((times) => times.settled)]);
    }
  }
  // The notes app: an account of its own with 10,000 notes (written straight into the database, as
  // the graph is: the API's own write path is measured by bench:api).
  if (PARTS.includes("app")) rows.push(...(await benchApp(service.url, dataDir)));
  if (PARTS.includes("offline")) rows.push(...(await benchOffline(service.url)));
  for (const [name, values, target] of rows) {
    const verdict = target === undefined ? "" : `  ${median(values) <= target ? "PASS" : "FAIL"} (target ≤ ${ms(target)})`;
    console.log(`${name.padEnd(62)} ${summary(values)}${verdict}`);
  }
}

async function benchApp(url: string, dataDir: string): Promise<[string, number[], number?][]> {
  const rows: [string, number[], number?][] = [];
  const writer = await registerAndLogin(url, "bench_notes");
  const notesDatabase = await openNotesDatabase({ url: `file:${path.join(dataDir, "rhizome.db")}` });
  try {
    await seedNotes(notesDatabase.db, writer.userId, NOTES);
  } finally {
    notesDatabase.close();
  }
  console.log(`seeded ${NOTES.toLocaleString("en")} notes (two tags each, Markdown with a wikilink) for the notes app`);
  const listFetches: number[] = [];
  const noteFetches: number[] = [];
  const appRuns: AppTimes[] = [];
  for (let run = 0; run <= RUNS; run++) {
    const listed = await timeJson(url, writer.token, "/api/notes?page=1&size=50");
    const app = await openAppAndTime(browser!, url);
    const read = await timeJson(url, writer.token, `/api/notes/${app.openedId}`);
    if (run > 0) {
      listFetches.push(listed);
      noteFetches.push(read);
      appRuns.push(app);
    }
  }
  rows.push(["baseline: GET /api/notes?page=1&size=50 + JSON.parse (bun fetch)", listFetches]);
  rows.push([`app: login → first notes drawn (${NOTES.toLocaleString("en")} notes)`, appRuns.map((times) => times.listed), 1500]);
  rows.push(["baseline: GET /api/notes/{id} + JSON.parse (bun fetch)", noteFetches]);
  rows.push(["app: a note chosen in Notes → its text drawn (first after login)", appRuns.map((times) => times.opened), 200]);
  rows.push(["app: another note chosen → its text drawn", appRuns.map((times) => times.openedAgain), 200]);
  rows.push(["app: scrolled to the end of Notes → the next 50 drawn", appRuns.map((times) => times.more)]);
  return rows;
}

interface PageTimes {
  /** Milliseconds from pressing Log in. */
  chosen: number;
  drawn: number;
  settled: number;
}

/** A fresh context (empty storage), log in, wait for the wanted view; times taken in the page itself. */
async function openAndTime(browser: Browser, url: string, limit: number): Promise<PageTimes> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (message) => message.type() === "error" && !message.location().url.endsWith("/api/auth/ticket") && errors.push(message.text()));
  await page.addInitScript(() => {
    const marks: Record<string, number> = {};
    (window as unknown as { benchMarks: Record<string, number> }).benchMarks = marks;
    document.addEventListener("submit", () => (marks.login = performance.now()), true);
    new MutationObserver(() => {
      const graph = document.getElementById("graph");
      if (graph?.dataset.drawn) marks[`drawn:${graph.dataset.drawn}`] ??= performance.now();
      if (graph?.dataset.layout) marks[`settled:${graph.dataset.drawn}`] ??= performance.now();
    }).observe(document, { attributes: true, subtree: true, attributeFilter: ["data-drawn", "data-layout"] });
  });
  await page.goto(`${url}/graph`);
  await page.getByLabel("Username").fill("bench_viewer");
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.locator(`#graph[data-drawn="500"]`).waitFor({ timeout: 120_000 });
  if (limit !== 500) {
    // At once, as a user would: the 500-node layout still running in the worker is dropped.
    await page.evaluate(() => ((window as unknown as { benchMarks: Record<string, number> }).benchMarks.chosen = performance.now()));
    await page.getByLabel("Nodes").selectOption(String(limit));
  }
  await settled(page, limit);
  const marks = await page.evaluate(() => (window as unknown as { benchMarks: Record<string, number> }).benchMarks);
  await context.close();
  if (errors.length) throw new Error(`the page logged errors: ${errors.join("; ")}`);
  const login = marks.login!;
  return { chosen: (marks.chosen ?? login) - login, drawn: marks[`drawn:${limit}`]! - login, settled: marks[`settled:${limit}`]! - login };
}

interface AppTimes {
  /** Milliseconds from pressing Log in to the first page of `Notes` in the DOM. */
  listed: number;
  /** From the click on a note in `Notes` to its rendered text in the page: the first after login, then another. */
  opened: number;
  openedAgain: number;
  /** From scrolling the list to its end to the next page of notes in it. */
  more: number;
  openedId: number;
}

/** A fresh context, log in at `/`, wait for `Notes`; open the tenth note; scroll for the next page. */
async function openAppAndTime(browser: Browser, url: string): Promise<AppTimes> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (message) => message.type() === "error" && errors.push(message.text()));
  page.on("pageerror", (error) => errors.push(error.message));
  await page.addInitScript(() => {
    const marks: Record<string, number> = {};
    (window as unknown as { benchMarks: Record<string, number> }).benchMarks = marks;
    document.addEventListener("submit", () => (marks.login = performance.now()), true);
    document.addEventListener("click", (event) => {
      if ((event.target as Element).closest?.(".note-item")) marks.clicked = performance.now();
    }, true);
    new MutationObserver(() => {
      const list = document.getElementById("notes");
      if (list?.dataset.loaded) marks[`loaded:${list.dataset.loaded}`] ??= performance.now();
      const note = document.getElementById("note");
      if (note?.dataset.note) marks[`note:${note.dataset.note}`] ??= performance.now();
    }).observe(document, { attributes: true, subtree: true, attributeFilter: ["data-loaded", "data-note"] });
  });
  await page.goto(`${url}/`);
  await page.getByLabel("Username").fill("bench_notes");
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.locator('#notes[data-loaded="50"]').waitFor({ timeout: 60_000 });
  const tenth = page.locator("#notes .note-item").nth(9);
  const openedId = Number(await tenth.getAttribute("data-id"));
  await tenth.click();
  await page.locator(`#note[data-note="${openedId}"]`).waitFor({ timeout: 60_000 });
  const firstOpen = await page.evaluate((id) => {
    const marks = (window as unknown as { benchMarks: Record<string, number> }).benchMarks;
    return marks[`note:${id}`]! - marks.clicked!;
  }, openedId);
  const eleventh = page.locator("#notes .note-item").nth(10);
  const againId = Number(await eleventh.getAttribute("data-id"));
  await eleventh.click();
  await page.locator(`#note[data-note="${againId}"]`).waitFor({ timeout: 60_000 });
  await page.evaluate(() => {
    (window as unknown as { benchMarks: Record<string, number> }).benchMarks.scrolled = performance.now();
    const list = document.getElementById("notes")!;
    list.scrollTop = list.scrollHeight;
  });
  await page.locator('#notes[data-loaded="100"]').waitFor({ timeout: 60_000 });
  const marks = await page.evaluate(() => (window as unknown as { benchMarks: Record<string, number> }).benchMarks);
  await context.close();
  if (errors.length) throw new Error(`the app logged errors: ${errors.join("; ")}`);
  return {
    listed: marks["loaded:50"]! - marks.login!,
    opened: firstOpen,
    openedAgain: marks[`note:${againId}`]! - marks.clicked!,
    more: marks["loaded:100"]! - marks.scrolled!,
    openedId,
  };
}

/**
 * The installed app without a network: log in once (the worker installs and precaches the shell,
 * the first notes are kept), then reload offline and time the first paint and the kept notes drawn;
 * beside the same reload online.
 */
async function benchOffline(url: string): Promise<[string, number[], number?][]> {
  const session = await registerAndLogin(url, "bench_offline");
  for (let i = 0; i < 50; i++) await fetch(`${url}/api/notes`, { method: "POST", headers: { authorization: `Bearer ${session.token}`, "content-type": "application/json" }, body: JSON.stringify({ title: `Offline note ${i}`, content: `Kept for the train, ${i}.` }) });
  const online: number[] = [];
  const paint: number[] = [];
  const listed: number[] = [];
  for (let run = 0; run <= RUNS; run++) {
    const context = await browser!.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${url}/`);
    await page.getByLabel("Username").fill("bench_offline");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.locator('#notes[data-loaded="50"]').waitFor({ timeout: 60_000 });
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
      if (!navigator.serviceWorker.controller) await new Promise((resolve) => navigator.serviceWorker.addEventListener("controllerchange", resolve, { once: true }));
    });
    const firstPaint = () =>
      page.evaluate(() => new Promise<number>((resolve) => {
        const seen = performance.getEntriesByName("first-contentful-paint")[0];
        if (seen) return resolve(seen.startTime);
        new PerformanceObserver((entries) => resolve(entries.getEntries()[0]!.startTime)).observe({ type: "paint", buffered: true });
      }));
    await page.reload();
    await page.locator('#notes[data-loaded="50"]').waitFor({ timeout: 60_000 });
    const onlinePaint = await firstPaint();
    await context.setOffline(true);
    await page.reload();
    const offlinePaint = await firstPaint();
    await page.locator("#notes[data-loaded]").waitFor({ timeout: 60_000 });
    const drawn = await page.evaluate(() => performance.now());
    const count = await page.locator("#notes .note-item").count();
    await context.close();
    if (count < 50) throw new Error(`offline, the app listed ${count} notes, not the 50 kept`);
    if (run === 0) continue;
    online.push(onlinePaint);
    paint.push(offlinePaint);
    listed.push(drawn);
  }
  return [
    ["baseline: reload online → first contentful paint", online],
    ["offline: reload → first contentful paint (the shell from the worker)", paint, 1000],
    ["offline: reload → the 50 kept notes drawn in Notes", listed],
  ];
}

/** Notes straight into the table (its triggers keep the tag index and counts), newest last. */
async function seedNotes(db: Awaited<ReturnType<typeof openNotesDatabase>>["db"], userId: number, count: number) {
  const start = Date.now() - count * 60_000;
  await db.run(sql`
    with recursive n(i) as (select 1 union all select i + 1 from n where i < ${count})
    insert into notes (user_id, title, content, excerpt, tags, created_at, updated_at)
    select ${userId}, 'Bench note ' || i,
      '## Note ' || i || char(10) || char(10) || 'Some **Markdown** about topic ' || (i % 20) || ', linking [[Bench note ' || (i + 1) || ']].' || char(10) || char(10) || '- one' || char(10) || '- two',
      'Note ' || i || ' Some Markdown about topic ' || (i % 20),
      json_array('bench', 'topic-' || (i % 20)), ${start} + i * 60000, ${start} + i * 60000
    from n`);
}

async function timeJson(url: string, token: string, pathname: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${url}${pathname}`, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) throw new Error(`${pathname}: ${response.status}`);
  await response.json();
  return performance.now() - started;
}

async function settled(page: Page, nodes: number) {
  await page.locator(`#graph[data-drawn="${nodes}"][data-layout="settled"]`).waitFor({ timeout: 120_000 });
}

async function timeFetch(url: string, token: string, limit: number): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${url}/api/knowledge-graph?limit=${limit}`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await response.json()) as { nodes: unknown[] };
  if (body.nodes.length !== limit) throw new Error(`expected ${limit} nodes, got ${body.nodes.length}`);
  return performance.now() - started;
}

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

function summary(values: number[]): string {
  return `${ms(median(values))} (${ms(Math.min(...values))}–${ms(Math.max(...values))})`;
}

function ms(value: number): string {
  return `${value.toFixed(0)} ms`;
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1).padStart(7)} KB`;
}
