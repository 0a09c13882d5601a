// `bun run bench:ask`: retrieval quality on the ask evaluation set (recall@5 and MRR per language,
// answers held in the passages) and POST /api/ask latency with no LLM, at the set's 40 notes and
// with 10,000 more notes beside them, next to GET /api/notes?q= for the same question (the baseline).
import { createClient } from "@libsql/client";
import path from "node:path";
import { seededRandom } from "../../src/modules/graph/seeded-random";
import { plainTextExcerpt } from "../../src/modules/notes/excerpt";
import { searchDocument } from "../../src/modules/search/search-document";
import { insertIndexEntries } from "./seed-notes";
import { askEval, seedAskEval } from "../../tests/fixtures/ask-eval/through-api";
import { formatScores, LANGUAGES, loadAskEvalSet, scoreAnswers } from "../../tests/fixtures/ask-eval/score";
import { percentile } from "./load";
import { type BenchService, withBenchService } from "./server-process";
import { chineseVocabulary, mixedContent } from "./search-content";

const FILLER = Number(process.env.BENCH_NOTES ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TARGET_P50_MS = 50;

await withBenchService("rhizome-bench-ask-", main);

async function main({ workDir, service, session }: BenchService) {
  const set = loadAskEvalSet();
  const noteIds = await seedAskEval(service.url, session.token, set);

  const small = await measure(service.url, session.token, noteIds, set);
  console.log(`\nQuality over ${set.notes.length} notes (${set.questions.length} questions):\n`);
  console.log(formatScores(small.scores));
  for (const language of LANGUAGES) for (const miss of small.scores[language].misses) console.log(`  ${language}: ${miss}`);

  if (FILLER === 0) return;
  const seconds = await seedFiller(path.join(workDir, "rhizome.db"), session.userId);
  console.log(`\nseeded ${FILLER.toLocaleString("en-US")} more notes in ${seconds.toFixed(1)} s (the graph still covers the set's notes only)`);
  const large = await measure(service.url, session.token, noteIds, set);
  console.log(`\nQuality with ${FILLER.toLocaleString("en-US")} distractor notes:\n`);
  console.log(formatScores(large.scores));

  console.log(`\nSlowest at ${(set.notes.length + FILLER).toLocaleString("en-US")} notes: ${large.worst.map(([q, ms]) => `${q} (${ms.toFixed(0)} ms)`).join("; ")}`);
  console.log(`\n| POST /api/ask, no LLM | notes | p50 ms | p99 ms | search p50 ms (baseline) | ask ÷ search | p50 ≤ ${TARGET_P50_MS} ms |`);
  console.log("|---|---:|---:|---:|---:|---:|---|");
  for (const [notes, result] of [[set.notes.length, small], [set.notes.length + FILLER, large]] as const) {
    const pass = notes < FILLER || result.ask.p50 <= TARGET_P50_MS ? "PASS" : "FAIL";
    console.log(
      `| ${set.questions.length} questions × ${ROUNDS} | ${notes.toLocaleString("en-US")} | ${result.ask.p50.toFixed(1)} | ${result.ask.p99.toFixed(1)} | ${result.search.p50.toFixed(1)} | ${(result.ask.p50 / result.search.p50).toFixed(2)} | ${pass} |`,
    );
  }
}

/** Every question, ROUNDS times (after one warm-up pass), interleaved with the plain search for the same words. */
async function measure(baseUrl: string, token: string, noteIds: number[], set: ReturnType<typeof loadAskEvalSet>) {
  const answers = [];
  for (const question of set.questions) answers.push((await askEval(baseUrl, token, noteIds, question.q)).passages);
  const askTimes: number[] = [];
  const searchTimes: number[] = [];
  const slowest = new Map<string, number>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const question of set.questions) {
      const { ms } = await askEval(baseUrl, token, noteIds, question.q);
      askTimes.push(ms);
      slowest.set(question.q, Math.max(slowest.get(question.q) ?? 0, ms));
      const started = performance.now();
      const response = await fetch(`${baseUrl}/api/notes?q=${encodeURIComponent(question.q.replace(/["*-]/g, " "))}`, { headers: { authorization: `Bearer ${token}` } });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`search: ${response.status}`);
      searchTimes.push(performance.now() - started);
    }
  }
  const summary = (times: number[]) => {
    const sorted = times.sort((a, b) => a - b);
    return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
  };
  const worst = [...slowest].sort((a, b) => b[1] - a[1]).slice(0, 3);
  return { scores: scoreAnswers(set.questions, answers), ask: summary(askTimes), search: summary(searchTimes), worst };
}

/** Mixed English and Chinese notes straight into the file with their index entries (as bench:search seeds). */
async function seedFiller(dbFile: string, userId: number): Promise<number> {
  const started = performance.now();
  const random = seededRandom(11);
  const vocabulary = chineseVocabulary(random);
  const pool = Array.from({ length: 500 }, (_, index) => {
    const content = mixedContent(random, index, vocabulary);
    return { content, excerpt: plainTextExcerpt(content) };
  });
  const client = createClient({ url: `file:${dbFile}` });
  try {
    await client.execute("PRAGMA busy_timeout = 5000");
    const now = Date.now();
    for (let start = 0; start < FILLER; start += 1000) {
      const rows = [];
      for (let index = start; index < Math.min(FILLER, start + 1000); index++) {
        const body = pool[index % pool.length]!;
        rows.push([`${body.content.slice(2, body.content.indexOf("\n"))} (${index + 1})`, body.content, body.excerpt, now - index]);
      }
      const inserted = await client.execute({
        sql: `insert into notes (user_id, title, content, excerpt, tags, created_at, updated_at)
          select ?, value ->> 0, value ->> 1, value ->> 2, '[]', value ->> 3, value ->> 3 from json_each(?) returning id, title, content`,
        args: [userId, JSON.stringify(rows)],
      });
      await insertIndexEntries(
        client,
        inserted.rows.map((row) => [Number(row.id), searchDocument({ userId, title: String(row.title), content: String(row.content), tags: [] })]),
      );
    }
    await client.execute({ sql: "delete from search_backlog where user_id = ?", args: [userId] });
    await client.execute("insert into notes_fts (notes_fts) values ('optimize')");
    await client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    client.close();
  }
  return (performance.now() - started) / 1000;
}
