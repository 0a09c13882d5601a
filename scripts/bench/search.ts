// `bun run bench:search`: 100,000 notes (~1 KB, English and Chinese mixed) for one user; p50/p99
// of search kinds next to the plain GET /api/notes, index size per note, and what the index adds
// to a note's write (createNote with the index against the same INSERT without it).
import fs from "node:fs";
import path from "node:path";
import { createClient } from "@libsql/client";
import { eq } from "drizzle-orm";
import { openNotesDatabase } from "../../src/db/client";
import { notes } from "../../src/db/schema";
import { seededRandom } from "../../src/modules/graph/seeded-random";
import { createNote, newNoteRow } from "../../src/modules/notes/create-note";
import { plainTextExcerpt } from "../../src/modules/notes/excerpt";
import { searchDocument, type SearchDocument } from "../../src/modules/search/search-document";
import { percentile } from "./load";
import { type BenchService, withBenchService } from "./server-process";
import { chineseVocabulary, mixedContent } from "./search-content";
import { draftTags, insertIndexEntries } from "./seed-notes";
import type { Session } from "./tasks-client";

const NOTES = Number(process.env.BENCH_NOTES ?? 100_000);
const BODY_POOL = 1000;
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const WARMUP = 20;
const WRITES = 1000;
const TARGET = { p50: 30, p99: 150 };
// Every 10,007th note has this word in its title: about ten notes.
const RARE = "quetzal";

await withBenchService("rhizome-bench-search-", main);

async function main({ workDir, service, session }: BenchService) {
  const dbFile = path.join(workDir, "rhizome.db");
  const seeded = await seed(dbFile, session.userId);
  console.log(`seeded ${NOTES.toLocaleString("en-US")} notes in ${(seeded.seconds).toFixed(1)} s; index ${(seeded.indexBytes / NOTES).toFixed(0)} bytes per note`);

  const kinds: [string, string][] = [
    ["GET /api/notes (no q)", ""],
    ["common word", "q=system"],
    ["rare word", `q=${RARE}`],
    ["2-character Chinese", `q=${encodeURIComponent("图谱")}`],
    ["4-character Chinese", `q=${encodeURIComponent("知识图谱")}`],
    ["1 common Chinese character", `q=${encodeURIComponent("的")}`],
    ["phrase", `q=${encodeURIComponent('"memory attention"')}`],
    ["common word + tag", "q=system&tag=ideas"],
  ];
  const rows: string[] = [];
  for (const [name, query] of kinds) {
    const { p50, p99, total } = await latency(session, query);
    const pass = query === "" || (p50 <= TARGET.p50 && p99 <= TARGET.p99);
    rows.push(`| ${name} | ${total.toLocaleString("en-US")} | ${p50.toFixed(1)} | ${p99.toFixed(1)} | ${query === "" ? "" : pass ? "PASS" : "FAIL"} |`);
    console.log(rows.at(-1));
  }
  const writes = await writeCost(path.join(workDir, "writes.db"));
  console.log(`\n| Search (${NOTES.toLocaleString("en-US")} notes, one user) | matches | p50 ms | p99 ms | p50 ≤ ${TARGET.p50}, p99 ≤ ${TARGET.p99} ms |`);
  console.log("|---|---:|---:|---:|---|");
  for (const row of rows) console.log(row);
  console.log(`\nIndex: ${(seeded.indexBytes / NOTES).toFixed(0)} bytes per note (notes alone ${(seeded.notesBytes / NOTES).toFixed(0)}).`);
  console.log(`createNote with the index: ${writes.indexed.toFixed(2)} ms a note, without ${writes.plain.toFixed(2)} ms (× ${(writes.indexed / writes.plain).toFixed(2)}).`);
}

/** The notes straight into the file (as seed-notes does), then their index entries from one tokenising per body. */
async function seed(dbFile: string, userId: number) {
  const started = performance.now();
  const random = seededRandom(7);
  const vocabulary = chineseVocabulary(random);
  const pool = Array.from({ length: BODY_POOL }, (_, index) => {
    const content = mixedContent(random, index, vocabulary);
    return { content, excerpt: plainTextExcerpt(content), document: searchDocument({ userId, title: "", content, tags: [] }) };
  });
  const client = createClient({ url: `file:${dbFile}` });
  try {
    await client.execute("PRAGMA synchronous = NORMAL");
    await client.execute("PRAGMA busy_timeout = 5000");
    await client.execute("PRAGMA cache_size = -131072");
    const batchSize = 2000;
    const yearMs = 365 * 24 * 3600 * 1000;
    const now = Date.now();
    const documents: SearchDocument[] = [];
    for (let start = 0; start < NOTES; start += batchSize) {
      const rows = [];
      for (let index = start; index < Math.min(NOTES, start + batchSize); index++) {
        const body = pool[index % BODY_POOL]!;
        const title = `${body.content.slice(2, body.content.indexOf("\n"))}${index % 10_007 === 0 ? ` ${RARE}` : ""} (${index + 1})`;
        const tags = draftTags(random);
        const createdAt = now - yearMs + Math.floor((index / NOTES) * yearMs);
        rows.push([title, body.content, body.excerpt, JSON.stringify(tags), createdAt, createdAt]);
        // Title and tags tokenised per note, the body once per pooled text.
        const { document: pooled } = body;
        documents.push({ ...searchDocument({ userId, title, content: "", tags }), body: pooled.body, bodyPairs: pooled.bodyPairs });
      }
      await client.execute({
        sql: `insert into notes (user_id, title, content, excerpt, tags, created_at, updated_at)
          select ?, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5 from json_each(?)`,
        args: [userId, JSON.stringify(rows)],
      });
    }
    await client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
    const notesBytes = fs.statSync(dbFile).size;
    const ids = (await client.execute({ sql: "select id from notes where user_id = ? order by id", args: [userId] })).rows.map((row) => Number(row.id));
    for (let start = 0; start < ids.length; start += batchSize) {
      await insertIndexEntries(client, ids.slice(start, start + batchSize).map((id, offset) => [id, documents[start + offset]!]));
    }
    // Indexed here, so the service has no backlog to catch up on.
    await client.execute({ sql: "delete from search_backlog where user_id = ?", args: [userId] });
    await client.execute("insert into notes_fts (notes_fts) values ('optimize')");
    await client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
    return { seconds: (performance.now() - started) / 1000, notesBytes, indexBytes: fs.statSync(dbFile).size - notesBytes };
  } finally {
    client.close();
  }
}

async function latency(session: Session, query: string) {
  const url = `${session.baseUrl}/api/notes${query ? `?${query}` : ""}`;
  const headers = { authorization: `Bearer ${session.token}` };
  const times: number[] = [];
  let total = 0;
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    const started = performance.now();
    const response = await fetch(url, { headers });
    const body = (await response.json()) as { total: number };
    if (response.status !== 200) throw new Error(`${url}: ${response.status} ${JSON.stringify(body)}`);
    if (i >= WARMUP) times.push(performance.now() - started);
    total = body.total;
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99), total };
}

/** Milliseconds a note: createNote (note and index in one transaction) against the bare INSERT. */
async function writeCost(file: string) {
  const database = await openNotesDatabase({ url: `file:${file}` });
  try {
    await database.client.execute("insert into users (username, username_key, password_hash, created_at) values ('w', 'w', 'x', 0)");
    const random = seededRandom(11);
    const vocabulary = chineseVocabulary(random);
    const inputs = Array.from({ length: WRITES }, (_, index) => ({ title: `Note ${index}`, content: mixedContent(random, index, vocabulary), tags: draftTags(random) }));
    const ctx = { db: database.db, userId: 1 };
    let started = performance.now();
    for (const input of inputs) await database.db.insert(notes).values(newNoteRow(1, input));
    const plain = (performance.now() - started) / WRITES;
    await database.db.delete(notes).where(eq(notes.userId, 1));
    started = performance.now();
    for (const input of inputs) await createNote({ ctx, input });
    const indexed = (performance.now() - started) / WRITES;
    return { plain, indexed };
  } finally {
    database.close();
  }
}
