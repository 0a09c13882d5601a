// `bun run bench:semantic`: search by meaning at 20,000 notes (and 100,000 with BENCH_SIZES) of about
// three passages each, vectors of 384 and 1,024 dimensions from the embeddings stand-in (in a process
// of its own, over HTTP like a real server; `dense`, spread over every dimension as a real model's are). Figures: hybrid search p50/p99 through listNotes (the
// query embedded by the stand-in each time) against lexical search on the same queries and notes,
// related notes p50, bytes per passage on disk (vectors and their ANN index), how much of the exact
// FLOAT32 top 10 the stored vectors keep (FLOAT8 ranked exactly, and through the index as searches
// use it), and the embedding job's backfill throughput against the stand-in's own bound (inputs a second).
//
// BENCH_SIZES="20000:384,20000:1024" (notes:dimensions, comma separated), BENCH_SAMPLES=200, BENCH_RANKING_QUERIES=50,
// BENCH_BACKFILL_NOTES=1500, BENCH_EMBED_RATE=100 (the stand-in's bound, inputs a second).
import fs from "node:fs";
import path from "node:path";
import { openNotesDatabase, type NotesDatabase } from "../../src/db/client";
import { seededRandom } from "../../src/modules/graph/seeded-random";
import { createEmbeddingsClient, type EmbeddingsClient } from "../../src/modules/llm/providers/openai-embeddings";
import { plainTextExcerpt } from "../../src/modules/notes/excerpt";
import { listNotes } from "../../src/modules/notes/list-notes";
import { catchUpSearchIndex } from "../../src/modules/search/index-notes";
import { embedUserNotes } from "../../src/modules/semantic/embed-user-notes";
import { noteUnits } from "../../src/modules/semantic/note-units";
import { relatedNotes } from "../../src/modules/semantic/related-notes";
import { ensureSpace } from "../../src/modules/semantic/space";
import { storedVector, vectorBlob } from "../../src/modules/semantic/stored-vector";
import { nearestVectors, type VectorKind } from "../../src/modules/semantic/vector-store";
import { CONCEPT_GROUPS, startFakeEmbeddings } from "../../tests/support/fake-embeddings";
import { percentile } from "./load";
import { benchWorkDir, startServerProcess, type ServerProcess } from "./server-process";

const SIZES = (process.env.BENCH_SIZES ?? "20000:384,20000:1024").split(",").map((pair) => pair.split(":").map(Number) as [number, number]);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const BACKFILL_NOTES = Number(process.env.BENCH_BACKFILL_NOTES ?? 1500);
const EMBED_RATE = Number(process.env.BENCH_EMBED_RATE ?? 100);
const RANKING_QUERIES = Number(process.env.BENCH_RANKING_QUERIES ?? 50);
const TARGETS = { hybridP50At20k: 30, hybridP50At100k: 100, bytesPerPassage: 8 * 1024, backfillRatio: 0.8 };
const MODEL = "bench-embed";

const workDir = benchWorkDir("rhizome-bench-semantic-");
let standIn: ServerProcess;

async function main() {
// The stand-in in its own process: its work and the database's do not share one event loop.
standIn = await startServerProcess("embeddings", "embeddings-server.ts", { EMBED_DENSE: "1" });
const rows: string[] = [];
try {
  for (const [notes, dimensions] of SIZES) rows.push(await measureSearch(notes, dimensions));
  const backfill = await measureBackfill();
  console.log(`\n| Notes | Dimensions | Passages | Hybrid p50 / p99 ms | Lexical p50 ms (same queries) | × lexical | Related p50 ms | Bytes a passage | Top 10 kept: exact / index | Targets |`);
  console.log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
  for (const row of rows) console.log(row);
  console.log(`\n${backfill}`);
} finally {
  await standIn.stop();
  fs.rmSync(workDir, { recursive: true, force: true });
}
}

async function measureSearch(noteCount: number, dimensions: number): Promise<string> {
  const dir = path.join(workDir, `${noteCount}-${dimensions}`);
  fs.mkdirSync(dir);
  const database = await openNotesDatabase({ url: `file:${path.join(dir, "rhizome.db")}` });
  try {
    const userId = await insertUser(database);
    const random = seededRandom(noteCount + dimensions);
    const started = performance.now();
    await seedNotes(database, userId, noteCount, random);
    await catchUpSearchIndex(database.db);
    const bytesBefore = await fileBytes(database);
    const client = createEmbeddingsClient({ baseURL: `${standIn.url}/v1`, model: MODEL, dimensions, batchSize: 64 });
    const exact = await seedVectors(database, client, userId, dimensions);
    const passages = exact.ids.length;
    const bytesPerPassage = ((await fileBytes(database)) - bytesBefore) / passages;
    console.log(`${noteCount} notes, ${dimensions} dimensions: ${passages} vectors seeded in ${((performance.now() - started) / 1000).toFixed(0)} s, ${bytesPerPassage.toFixed(0)} bytes each`);
    const kept = await rankingKept(database, client, userId, exact, random);
    console.log(`of the exact FLOAT32 top 10: ${kept.exact.toFixed(3)} kept ranking the stored vectors exactly, ${kept.index.toFixed(3)} through the index`);

    const semantic = { client };
    const queries = Array.from({ length: SAMPLES }, (_, index) => query(random, index));
    const time = async (mode: "hybrid" | "lexical") => {
      const times: number[] = [];
      for (const [index, q] of queries.entries()) {
        const begun = performance.now();
        const page = await listNotes({ ctx: { db: database.db, userId, semantic }, input: { q, page: 1, size: 20, mode } });
        if (index >= 10) times.push(performance.now() - begun); // the first few warm the caches
        if (mode === "hybrid" && page.mode !== "hybrid") throw new Error(`the search answered ${page.mode}, not hybrid`);
      }
      return times.sort((a, b) => a - b);
    };
    const lexical = await time("lexical");
    // Each query is new to the query cache, so every hybrid search embeds its query over HTTP.
    queries.forEach((q, index) => (queries[index] = `${q} `));
    const hybrid = await time("hybrid");
    const related: number[] = [];
    for (let index = 0; index < Math.min(SAMPLES, 100); index++) {
      const id = 1 + Math.floor(random() * noteCount);
      const begun = performance.now();
      await relatedNotes({ ctx: { db: database.db, userId, semantic }, input: { id, limit: 10 } });
      related.push(performance.now() - begun);
    }
    related.sort((a, b) => a - b);
    const hybridP50 = percentile(hybrid, 0.5);
    const target = noteCount <= 20_000 ? TARGETS.hybridP50At20k : TARGETS.hybridP50At100k;
    const verdict = [
      dimensions === 384 || noteCount <= 20_000 ? `hybrid p50 ≤ ${target}: ${hybridP50 <= target ? "PASS" : "FAIL"}` : "",
      `≤ 8 KiB: ${bytesPerPassage <= TARGETS.bytesPerPassage ? "PASS" : "FAIL"}`,
    ].filter(Boolean);
    const row = `| ${noteCount.toLocaleString("en-US")} | ${dimensions} | ${passages.toLocaleString("en-US")} | ${hybridP50.toFixed(1)} / ${percentile(hybrid, 0.99).toFixed(1)} | ${percentile(lexical, 0.5).toFixed(1)} | ${(hybridP50 / percentile(lexical, 0.5)).toFixed(2)} | ${percentile(related, 0.5).toFixed(1)} | ${bytesPerPassage.toFixed(0)} | ${kept.exact.toFixed(2)} / ${kept.index.toFixed(2)} | ${verdict.join("; ")} |`;
    console.log(row);
    return row;
  } finally {
    database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The embedding job itself on fresh notes, against the stand-in bounded to EMBED_RATE inputs a second. */
async function measureBackfill(): Promise<string> {
  const dir = path.join(workDir, "backfill");
  fs.mkdirSync(dir);
  const database = await openNotesDatabase({ url: `file:${path.join(dir, "rhizome.db")}` });
  let bounded: ServerProcess | undefined;
  try {
    const userId = await insertUser(database);
    await seedNotes(database, userId, BACKFILL_NOTES, seededRandom(3));
    bounded = await startServerProcess("embeddings-bounded", "embeddings-server.ts", { EMBED_RATE: String(EMBED_RATE) });
    const client = createEmbeddingsClient({ baseURL: `${bounded.url}/v1`, model: MODEL, dimensions: 384, batchSize: 32 });
    const started = performance.now();
    const result = await embedUserNotes({ db: database.db, client }, userId);
    const seconds = (performance.now() - started) / 1000;
    const rate = result.inputsEmbedded / seconds;
    const ratio = rate / EMBED_RATE;
    return `Backfill of ${BACKFILL_NOTES.toLocaleString("en-US")} notes (${result.inputsEmbedded.toLocaleString("en-US")} inputs, 384 dimensions): ${seconds.toFixed(1)} s, ${rate.toFixed(0)} inputs/s against the stand-in's bound of ${EMBED_RATE}/s: × ${ratio.toFixed(2)} (target ≥ ${TARGETS.backfillRatio}: ${ratio >= TARGETS.backfillRatio ? "PASS" : "FAIL"}).`;
  } finally {
    await bounded?.stop();
    database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function insertUser(database: NotesDatabase): Promise<number> {
  const result = await database.client.execute("insert into users (username, username_key, password_hash, created_at) values ('bench', 'bench', 'x', 0) returning id");
  return Number(result.rows[0]!.id);
}

// Words of the notes: filler, with a concept word of the stand-in's now and then (what queries find by meaning).
const FILLER = "system memory attention habit model evidence theory practice river market signal pattern question method reading writing chapter author review insight example problem solution design latency budget schedule project context structure process archive library index search language compiler protocol cache queue kernel neuron protein climate economy history music poetry physics energy ocean forest city bridge engine".split(" ");
const CONCEPT_WORDS = CONCEPT_GROUPS.flat().filter((word) => /^[a-z]+$/.test(word));

function sentence(random: () => number): string {
  const words = Array.from({ length: 10 + Math.floor(random() * 10) }, () => {
    const list = random() < 0.15 ? CONCEPT_WORDS : FILLER;
    return list[Math.floor(random() * list.length)]!;
  });
  return `${words.join(" ")}.`;
}

/** About three passages a note: paragraphs of three to five sentences. */
function noteContent(random: () => number): string {
  return Array.from({ length: 3 }, () => Array.from({ length: 3 + Math.floor(random() * 3) }, () => sentence(random)).join(" ")).join("\n\n");
}

function query(random: () => number, index: number): string {
  const group = CONCEPT_GROUPS[index % CONCEPT_GROUPS.length]!;
  const other = CONCEPT_GROUPS[(index * 7 + 3) % CONCEPT_GROUPS.length]!;
  return `${group[Math.floor(random() * group.length)]} ${other[Math.floor(random() * other.length)]} ${FILLER[index % FILLER.length]}`;
}

async function seedNotes(database: NotesDatabase, userId: number, count: number, random: () => number): Promise<void> {
  const batch = 1000;
  for (let start = 0; start < count; start += batch) {
    const statements = [];
    for (let index = start; index < Math.min(count, start + batch); index++) {
      const content = noteContent(random);
      statements.push({
        sql: "insert into notes (user_id, title, content, excerpt, tags, created_at, updated_at) values (?, ?, ?, ?, '[]', ?, ?)",
        args: [userId, `Note ${index}: ${sentence(random).slice(0, 60)}`, content, plainTextExcerpt(content), index, index],
      });
    }
    await database.client.batch(statements, "write");
  }
}

/** Every stored vector as the stand-in gave it (FLOAT32), by row id: what exact ranking is measured against. */
interface ExactVectors {
  ids: number[];
  kinds: VectorKind[];
  values: Float32Array;
  dimensions: number;
}

/**
 * Every note's vectors straight into its space (what the embedding job writes, without the HTTP
 * round trips: the stand-in's vectors computed here are the same), with the ANN index kept as
 * rows arrive. Returns them as given, unit-scaled.
 */
async function seedVectors(database: NotesDatabase, client: EmbeddingsClient, userId: number, dimensions: number): Promise<ExactVectors> {
  const local = startFakeEmbeddings({ dimensions, dense: true });
  try {
    const space = await ensureSpace(database.db, client.settings, dimensions);
    const exact: ExactVectors = { ids: [], kinds: [], values: new Float32Array(0), dimensions };
    const chunks: Float32Array[] = [];
    let total = 0;
    let after = 0;
    for (;;) {
      const notes = await database.client.execute({ sql: "select id, title, content from notes where user_id = ? and id > ? order by id limit 500", args: [userId, after] });
      if (notes.rows.length === 0) break;
      after = Number(notes.rows.at(-1)!.id);
      const statements = [];
      for (const row of notes.rows) {
        for (const unit of noteUnits({ title: String(row.title), content: String(row.content), tags: [] })) {
          const vector = unitScaled(local.vectorOf(unit.text, MODEL, dimensions));
          total++;
          exact.ids.push(total);
          exact.kinds.push(unit.kind);
          chunks.push(vector);
          statements.push({
            sql: `insert into ${space.table} (id, user_id, note_id, kind, start, "end", hash, embedding) values (:id, :user, :note, :kind, :start, :end, :hash, ${storedVector(":embedding")})`,
            args: { id: total, user: userId, note: Number(row.id), kind: unit.kind, start: unit.start, end: unit.end, hash: unit.hash, embedding: vectorBlob(vector) },
          });
        }
        statements.push({ sql: "insert or replace into semantic_notes (note_id, user_id, space_key, embedded_at) values (?, ?, ?, 0)", args: [Number(row.id), userId, space.key] });
      }
      await database.client.batch(statements, "write");
      if (after % 5000 < 500) process.stdout.write(`\r  vectors for ${after} notes`);
    }
    process.stdout.write("\n");
    await database.client.execute({ sql: "insert or replace into semantic_users (user_id, space_key, ready_at, updated_at) values (?, ?, 0, 0)", args: [userId, space.key] });
    exact.values = new Float32Array(total * dimensions);
    chunks.forEach((vector, index) => exact.values.set(vector, index * dimensions));
    return exact;
  } finally {
    await local.stop();
  }
}

/**
 * How much of the exact top 10 (cosine over the FLOAT32 vectors as given) the stored vectors keep:
 * ranked exactly in SQL, and through the DiskANN index as `nearestVectors` serves searches. A hit is
 * any vector at least as similar as the exact 10th (the stand-in's vectors tie often).
 */
async function rankingKept(database: NotesDatabase, client: EmbeddingsClient, userId: number, exact: ExactVectors, random: () => number) {
  const local = startFakeEmbeddings({ dimensions: exact.dimensions, dense: true });
  const space = await ensureSpace(database.db, client.settings, exact.dimensions);
  let keptExact = 0;
  let keptIndex = 0;
  try {
    for (let index = 0; index < RANKING_QUERIES; index++) {
      const q = unitScaled(local.vectorOf(query(random, index + 1000), MODEL, exact.dimensions));
      const similarity = new Map<number, number>();
      const all = new Float32Array(exact.ids.length);
      for (let row = 0; row < exact.ids.length; row++) {
        let dot = 0;
        const offset = row * exact.dimensions;
        for (let d = 0; d < exact.dimensions; d++) dot += q[d]! * exact.values[offset + d]!;
        all[row] = dot;
        similarity.set(exact.ids[row]!, dot);
      }
      const tenth = [...all].sort((a, b) => b - a)[9]! - 1e-6;
      const stored = await database.client.execute({
        sql: `select id from ${space.table} where user_id = :user order by vector_distance_cos(embedding, ${storedVector(":q")}) limit 10`,
        args: { user: userId, q: vectorBlob(q) },
      });
      keptExact += stored.rows.filter((row) => similarity.get(Number(row.id))! >= tenth).length / 10;
      const served = await nearestVectors(database.db, space, { userId, vector: q, kinds: ["title", "passage"], limit: 10 });
      keptIndex += served.filter((hit) => similarity.get(hit.id)! >= tenth).length / 10;
    }
  } finally {
    await local.stop();
  }
  return { exact: keptExact / RANKING_QUERIES, index: keptIndex / RANKING_QUERIES };
}

function unitScaled(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  return vector.map((value) => value / norm);
}

/** The database's size once its write-ahead log is folded in. */
async function fileBytes(database: NotesDatabase): Promise<number> {
  await database.client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
  const result = await database.client.execute("select page_count * page_size as bytes from pragma_page_count(), pragma_page_size()");
  return Number(result.rows[0]!.bytes);
}

await main();
