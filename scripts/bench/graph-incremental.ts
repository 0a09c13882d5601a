// Part of `bun run bench:graph` (alone: `bun run scripts/bench/graph-incremental.ts`): does an
// incremental build cost what changed? In-process, on a libSQL file, with the Anthropic extractor
// against the fake Messages API: N notes are extracted once (fake answering at once, 32 in flight),
// then one note is edited and an incremental build runs with the fake answering after 200 ms (nine
// times, a different note each time; medians reported).
// Printed per N (1,000 and 10,000): the build's wall time (start → completed), the time after the
// model's answer (last answer → completed: writing the difference), and the ratio 10,000/1,000 of
// the latter (target ≤ 1.3); and a dry run's time at 10,000 notes (incremental and full).
import type { ChangePublisher } from "../../src/modules/events/change";
import fs from "node:fs";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { openNotesDatabase } from "../../src/db/client";
import { graphBuilds, notes } from "../../src/db/schema";
import { runGraphBuild } from "../../src/modules/graph/build-graph";
import { estimateBuild } from "../../src/modules/graph/estimate-build";
import { startFakeAnthropic } from "../../tests/support/fake-anthropic";
import { insertUser } from "../../tests/support/graph-seed";
import { draftEdit, draftNotes } from "./graph-notes";
import { benchWorkDir } from "./server-process";

const SIZES = (process.env.BENCH_GRAPH_INCREMENTAL_SIZES ?? "1000,10000").split(",").map(Number);
const LATENCY_MS = 200;
const SEED_CONCURRENCY = 32;
/** Incremental builds per size, each after editing a different note; the median is reported (tens of ms on a shared machine are noisy). */
const REPEATS = 9;
export const INCREMENTAL_TARGET_RATIO = 1.3;

export interface IncrementalResult {
  notes: number;
  nodes: number;
  edges: number;
  wallMs: number;
  afterAnswerMs: number;
  dryRunMs?: { incremental: number; full: number };
}

export async function measureIncremental(log: (message: string) => void = console.log): Promise<IncrementalResult[]> {
  const fake = await startFakeAnthropic({ latencyMs: 0 });
  const results: IncrementalResult[] = [];
  try {
    for (const size of SIZES) results.push(await measureOne(size, fake, log));
  } finally {
    await fake.stop();
  }
  return results;
}

/** No stream listens in this benchmark. */
const unheardChanges: ChangePublisher = { publish: async () => {} };

async function measureOne(size: number, fake: Awaited<ReturnType<typeof startFakeAnthropic>>, log: (message: string) => void): Promise<IncrementalResult> {
  const dir = benchWorkDir("rhizome-bench-incremental-");
  const database = await openNotesDatabase({ url: `file:${path.join(dir, "notes.db")}` });
  try {
    const { db } = database;
    const userId = await insertUser(db, `bench_${size}`);
    const drafts = draftNotes(size, 41);
    const at = Date.now();
    for (let offset = 0; offset < drafts.length; offset += 2000) {
      const rows = drafts.slice(offset, offset + 2000).map((draft) => [draft.title, draft.content, JSON.stringify(draft.tags)]);
      await db.run(sql`insert into notes (user_id, title, content, excerpt, tags, created_at, updated_at)
        select ${userId}, value ->> 0, value ->> 1, '', value ->> 2, ${at}, ${at} from json_each(${JSON.stringify(rows)})`);
    }
    const settings = (concurrency: number) => ({
      extractor: "anthropic" as const,
      llmConcurrency: concurrency,
      anthropic: { apiKey: "bench", baseURL: fake.url, model: "claude-haiku-4-5" },
    });
    const run = async (concurrency: number) => {
      const [build] = await db
        .insert(graphBuilds)
        .values({ userId, mode: "incremental", status: "building", message: "Queued", startedAt: Date.now(), updatedAt: Date.now() })
        .returning();
      const started = performance.timeOrigin + performance.now();
      await runGraphBuild({ db, settings: settings(concurrency), signal: new AbortController().signal, attempt: 1, maxAttempts: 1, changes: unheardChanges }, { buildId: build!.id, userId });
      const [done] = await db.select().from(graphBuilds).where(eq(graphBuilds.id, build!.id));
      if (done!.status !== "completed") throw new Error(`build ${done!.id} ${done!.status}: ${done!.error}`);
      return { started, finishedAt: done!.finishedAt!, calls: done!.llmCalls };
    };

    fake.setLatency(0);
    const seedStarted = performance.now();
    const seeded = await run(SEED_CONCURRENCY);
    log(`incremental bench: ${size} notes extracted in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s (${seeded.calls} calls)`);

    // Edit one note, as PUT /api/notes would (the build sees a new content hash).
    const ids = (await db.select({ id: notes.id }).from(notes).where(eq(notes.userId, userId)).orderBy(notes.id)).map((row) => row.id);
    const editNote = async (repeat: number) => {
      const id = ids[Math.floor(((repeat + 0.5) * ids.length) / REPEATS)]!;
      const [target] = await db.select({ content: notes.content }).from(notes).where(eq(notes.id, id));
      await db.update(notes).set({ content: target!.content + draftEdit(7 + repeat), updatedAt: Date.now() }).where(eq(notes.id, id));
    };
    await editNote(0);

    let dryRunMs: IncrementalResult["dryRunMs"];
    if (size === Math.max(...SIZES)) {
      const ctx = { db, userId, graphSettings: settings(4) };
      const dryIncremental = performance.now();
      const incremental = await estimateBuild({ ctx, input: { mode: "incremental" } });
      const incrementalMs = performance.now() - dryIncremental;
      const dryFull = performance.now();
      const full = await estimateBuild({ ctx, input: { mode: "full" } });
      dryRunMs = { incremental: incrementalMs, full: performance.now() - dryFull };
      if (incremental.notes_to_extract !== 1 || full.notes_to_extract !== size) throw new Error(`unexpected dry runs ${JSON.stringify({ incremental, full })}`);
    }

    fake.setLatency(LATENCY_MS);
    const walls: number[] = [];
    const afters: number[] = [];
    for (let repeat = 0; repeat < REPEATS; repeat++) {
      if (repeat > 0) await editNote(repeat);
      const edit = await run(4);
      if (edit.calls !== 1) throw new Error(`the incremental build made ${edit.calls} calls, not 1`);
      walls.push(edit.finishedAt - edit.started);
      afters.push(edit.finishedAt - fake.lastAnsweredAt);
    }
    const [counts] = await db.all<{ nodes: number; edges: number }>(
      sql`select (select count(*) from graph_nodes where user_id = ${userId}) as nodes, (select count(*) from graph_edges where user_id = ${userId}) as edges`,
    );
    return {
      notes: size,
      nodes: Number(counts!.nodes),
      edges: Number(counts!.edges),
      wallMs: median(walls),
      afterAnswerMs: median(afters),
      dryRunMs,
    };
  } finally {
    database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export function reportIncremental(results: IncrementalResult[]): { text: string; pass: boolean } {
  const lines = results.map(
    (result) =>
      `${String(result.notes).padStart(6)} notes (${result.nodes} nodes, ${result.edges} edges): wall ${result.wallMs.toFixed(0)} ms, ` +
      `after the model's answer ${result.afterAnswerMs.toFixed(0)} ms`,
  );
  const [small, large] = [results[0], results.at(-1)];
  const ratio = small && large && small !== large ? large.afterAnswerMs / small.afterAnswerMs : NaN;
  const pass = Number.isFinite(ratio) && ratio <= INCREMENTAL_TARGET_RATIO;
  if (Number.isFinite(ratio)) lines.push(`ratio ${large!.notes}/${small!.notes} after the answer: ${ratio.toFixed(2)} (target ≤ ${INCREMENTAL_TARGET_RATIO}) ${pass ? "PASS" : "FAIL"}`);
  const dry = results.find((result) => result.dryRunMs);
  if (dry?.dryRunMs) lines.push(`dry run at ${dry.notes} notes: incremental ${dry.dryRunMs.incremental.toFixed(0)} ms, full ${dry.dryRunMs.full.toFixed(0)} ms`);
  return { text: `\n== Incremental build after editing 1 note (fake model at ${LATENCY_MS} ms; median of ${REPEATS}) ==\n${lines.join("\n")}`, pass };
}

if (import.meta.main) {
  const { text, pass } = reportIncremental(await measureIncremental());
  console.log(text);
  process.exit(pass ? 0 : 1);
}
