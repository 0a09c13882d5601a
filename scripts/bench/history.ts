// `bun run bench:history`: what keeping every version costs. A 1 MiB note edited 1,000 times by one
// word each, on two servers of this code in one run — NOTE_VERSIONS_MAX=1000 (history) and 0 (no
// history: the edit path as it was before history) — in alternating blocks: database growth, PUT
// p50/p99, and the time to read the oldest version. Then a backup of 100,000 notes while a client
// writes: how long it takes and the longest a write waited meanwhile.
import fs from "node:fs";
import path from "node:path";
import { createClient } from "@libsql/client";
import { seededRandom } from "../../src/modules/graph/seeded-random";
import { takeBackup } from "../../src/modules/history/backups";
import { percentile } from "./load";
import { draftContent, seedNotes } from "./seed-notes";
import { benchWorkDir, startServerProcess, type ServerProcess } from "./server-process";
import { registerAndLogin, type Session } from "./tasks-client";

const EDITS = Number(process.env.BENCH_EDITS ?? 1_000);
/** Of those, the first this many per server are timed against the server without history, in alternating blocks. */
const COMPARED = Number(process.env.BENCH_COMPARED ?? 100);
const BLOCK = 25;
const NOTE_BYTES = 1024 * 1024;
const BACKUP_NOTES = Number(process.env.BENCH_BACKUP_NOTES ?? 100_000);
const TARGET = { growthBytes: 5 * 1024 * 1024, putRatio: 1.3, oldestMs: 50, writeWaitMs: 200 };
const MIB = 1024 * 1024;
/** How long the writes are timed with no backup running, as the baseline of the backup's figures. */
const CONTROL_MS = Number(process.env.BENCH_CONTROL_SECONDS ?? 10) * 1000;

const workDir = benchWorkDir("rhizome-bench-history-");
const running: ServerProcess[] = [];
try {
  await main();
} finally {
  await Promise.all(running.splice(0).map((server) => server.stop()));
  fs.rmSync(workDir, { recursive: true, force: true });
}

interface Side {
  name: string;
  dir: string;
  server: ServerProcess;
  /** Two clients of the same user taking turns, so no edit coalesces with the one before: each is a version. */
  clients: [Session, Session];
  noteId: number;
  content: string;
  latencies: number[];
  edits: number;
}

async function main() {
  // BENCH_PART=backup: only the backup under writes (the edits of a 1 MiB note take a while).
  if (process.env.BENCH_PART === "backup") return backupOnly();
  const random = seededRandom(5);
  let base = "";
  for (let index = 0; base.length < NOTE_BYTES; index++) base += `${draftContent(random, index)}\n\n`;
  base = base.slice(0, NOTE_BYTES);
  const sides: Side[] = [];
  for (const [name, versions] of [["history", "1000"], ["no history", "0"]] as const) {
    const dir = path.join(workDir, name.replace(" ", "-"));
    fs.mkdirSync(dir);
    const server = await startServerProcess(name, "service-server.ts", { DATA_DIR: dir, NOTE_VERSIONS_MAX: versions, BACKUP_INTERVAL_HOURS: "0" });
    running.push(server);
    const session = await registerAndLogin(server.url, "bench");
    const token = await call(session, "POST", "/api/auth/tokens", { name: "the other client", scopes: ["notes:read", "notes:write"] });
    const created = await call(session, "POST", "/api/notes", { title: "A long note", content: base });
    sides.push({ name, dir, server, clients: [session, { ...session, token: token.token }], noteId: created.id, content: base, latencies: [], edits: 0 });
  }
  const sizes = new Map(await Promise.all(sides.map(async (side) => [side.name, await databaseBytes(side.dir)] as const)));
  console.log(`a ${(base.length / MIB).toFixed(2)} MiB note, ${EDITS} one-word edits per server, in blocks of ${BLOCK} alternating`);

  const words = base.split(/\s+/).filter((word) => /^[a-z]{4,}$/.test(word));
  const edit = async (side: Side) => {
    // One word, somewhere in the note, becomes another of the same length (the note stays 1 MiB): the same edits on both sides.
    const n = side.edits++;
    const word = words[(n * 7919) % words.length]!;
    const found = side.content.indexOf(` ${word} `, (n * 104_729) % side.content.length);
    const at = found < 0 ? side.content.indexOf(` ${word} `) : found;
    const replacement = `e${n}${"x".repeat(word.length)}`.slice(0, word.length);
    side.content = `${side.content.slice(0, at + 1)}${replacement}${side.content.slice(at + 1 + word.length)}`;
    const started = performance.now();
    await call(side.clients[n % 2]!, "PUT", `/api/notes/${side.noteId}`, { content: side.content });
    return performance.now() - started;
  };
  for (let done = 0; done < COMPARED; done += BLOCK) {
    for (const side of done / BLOCK % 2 === 0 ? sides : [...sides].reverse()) {
      for (let n = done; n < Math.min(COMPARED, done + BLOCK); n++) side.latencies.push(await edit(side));
    }
  }
  console.log(`  ${COMPARED} edits per server timed side by side; the history server goes on to ${EDITS}`);
  while (sides[0]!.edits < EDITS) {
    await edit(sides[0]!);
    if (sides[0]!.edits % 100 === 0) console.log(`  ${sides[0]!.edits} edits`);
  }
  const history = sides[0]!;
  const plain = sides[1]!;
  const growth = new Map(await Promise.all(sides.map(async (side) => [side.name, (await databaseBytes(side.dir)) - sizes.get(side.name)!] as const)));
  // The server without history made fewer edits: its growth per edit, scaled to the history server's count, is what the note alone costs.
  const plainGrowth = (growth.get("no history")! / Math.max(1, sides[1]!.edits)) * sides[0]!.edits;
  const versionsGrowth = growth.get("history")! - Math.max(0, plainGrowth);
  const versions = await call(history.clients[0], "GET", `/api/notes/${history.noteId}/versions?size=1`);
  const oldest = versions.total === 0 ? 1 : versions.items[0].version - versions.total + 1;
  const oldestMs: number[] = [];
  for (let n = 0; n < 7; n++) {
    const started = performance.now();
    const read = await call(history.clients[0], "GET", `/api/notes/${history.noteId}/versions/${oldest}`);
    oldestMs.push(performance.now() - started);
    if (n === 0 && read.content !== base) throw new Error("the oldest version does not read back as the original text");
  }
  const p50 = (side: Side) => percentile([...side.latencies].sort((a, b) => a - b), 0.5);
  const p99 = (side: Side) => percentile([...side.latencies].sort((a, b) => a - b), 0.99);
  const ratio = p50(history) / p50(plain);
  const oldestMedian = percentile(oldestMs.sort((a, b) => a - b), 0.5);

  console.log(`\n| one-word edits of a 1 MiB note (${EDITS} with history, ${sides[1]!.edits} without; PUTs timed: the first ${COMPARED} of each) | history | no history | target |`);
  console.log("|---|---:|---:|---|");
  console.log(`| versions kept | ${versions.total} | 0 | |`);
  console.log(`| database growth | ${(growth.get("history")! / MIB).toFixed(2)} MiB | ${(growth.get("no history")! / MIB).toFixed(2)} MiB | the versions' share ${(versionsGrowth / MIB).toFixed(2)} MiB ≤ 5 MiB: ${versionsGrowth <= TARGET.growthBytes ? "PASS" : "FAIL"} |`);
  console.log(`| versions' own bytes (title, tags, deltas) | ${((await versionBytes(history.dir)) / 1024).toFixed(1)} KiB | — | |`);
  console.log(`| PUT p50 | ${p50(history).toFixed(1)} ms | ${p50(plain).toFixed(1)} ms | × ${ratio.toFixed(2)} ≤ ${TARGET.putRatio}: ${ratio <= TARGET.putRatio ? "PASS" : "FAIL"} |`);
  console.log(`| PUT p99 | ${p99(history).toFixed(1)} ms | ${p99(plain).toFixed(1)} ms | |`);
  console.log(`| read the oldest version (median of 7) | ${oldestMedian.toFixed(1)} ms | — | ≤ ${TARGET.oldestMs} ms: ${oldestMedian <= TARGET.oldestMs ? "PASS" : "FAIL"} |`);

  await backupWhileWriting(history, history.clients[0]);
}

async function backupOnly() {
  const dir = path.join(workDir, "backup-only");
  fs.mkdirSync(dir);
  const server = await startServerProcess("history", "service-server.ts", { DATA_DIR: dir, BACKUP_INTERVAL_HOURS: "0" });
  running.push(server);
  const session = await registerAndLogin(server.url, "bench");
  await backupWhileWriting({ dir } as Side, session);
}

/** 100,000 notes, then a backup of them while one client keeps writing. */
async function backupWhileWriting(side: Side, session: Session) {
  const dbFile = path.join(side.dir, "rhizome.db");
  await seedNotes({ dbFile, userId: session.userId, count: BACKUP_NOTES, seed: 3 });
  // The seeding's write-ahead log goes into the database first, so no write below pays for checkpointing it.
  await databaseBytes(side.dir);
  const waits: number[] = [];
  const startedAt: number[] = [];
  let writing = true;
  const writer = (async () => {
    for (let n = 0; writing; n++) {
      const started = performance.now();
      await call(session, "POST", "/api/notes", { title: `during the backup ${n}`, content: "written while the backup ran" });
      waits.push(performance.now() - started);
      startedAt.push(started);
    }
  })();
  await Bun.sleep(2000);
  // The baseline: the same writes for as long as a backup takes, with no backup.
  const controlFrom = waits.length;
  await Bun.sleep(CONTROL_MS);
  const control = waits.slice(controlFrom);
  const before = waits.length;
  const started = performance.now();
  const { manifest } = await takeBackup({ dbFile, filesDir: path.join(side.dir, "files"), backupDir: path.join(side.dir, "backups"), keep: 1 });
  const seconds = (performance.now() - started) / 1000;
  writing = false;
  await writer;
  const during = waits.slice(before);
  const longest = Math.max(...during);
  if (process.env.BENCH_TRACE) {
    for (let n = before; n < waits.length; n++) if (waits[n]! > 50) console.log(`  a write at ${((startedAt[n]! - started) / 1000).toFixed(2)} s into the backup waited ${waits[n]!.toFixed(0)} ms`);
  }
  const median = (values: number[]) => percentile([...values].sort((a, b) => a - b), 0.5);
  console.log(`\n| Backup of ${manifest.notes.toLocaleString("en-US")} notes | value | target |`);
  console.log("|---|---:|---|");
  console.log(`| time (links, pages, integrity_check) | ${seconds.toFixed(1)} s (snapshot ${(manifest.snapshot_ms / 1000).toFixed(1)} s) | |`);
  console.log(`| size | ${(manifest.bytes / MIB).toFixed(1)} MiB | |`);
  console.log(`| writes meanwhile | ${during.length}, p50 ${median(during).toFixed(1)} ms (without a backup, ${CONTROL_MS / 1000} s before: ${control.length}, p50 ${median(control).toFixed(1)} ms) | |`);
  console.log(`| longest a write waited | ${longest.toFixed(1)} ms (without a backup: ${Math.max(...control).toFixed(1)} ms) | ≤ ${TARGET.writeWaitMs} ms: ${longest <= TARGET.writeWaitMs ? "PASS" : "FAIL"} |`);
}

async function call(session: Session, method: string, route: string, body?: unknown): Promise<any> {
  const response = await fetch(session.baseUrl + route, {
    method,
    headers: { authorization: `Bearer ${session.token}`, ...(body !== undefined && { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** What the versions' rows hold. */
async function versionBytes(dir: string): Promise<number> {
  const client = createClient({ url: `file:${path.join(dir, "rhizome.db")}` });
  try {
    const [row] = (await client.execute("select coalesce(sum(length(title) + length(tags) + length(delta)), 0) from note_versions")).rows;
    return Number(row![0]);
  } finally {
    client.close();
  }
}

/** The database's size once its write-ahead log is checkpointed into it. */
async function databaseBytes(dir: string): Promise<number> {
  const file = path.join(dir, "rhizome.db");
  const client = createClient({ url: `file:${file}` });
  try {
    await client.execute("PRAGMA busy_timeout = 5000");
    await client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
    const [row] = (await client.execute("select page_count * page_size - freelist_count * page_size from pragma_page_count(), pragma_page_size(), pragma_freelist_count()")).rows;
    return Number(row![0]);
  } finally {
    client.close();
  }
}
