import type { InStatement, InValue } from "@libsql/client";
import type { Database } from "../../db/client";
import { EmbeddingsRequestError, type EmbeddingsClient } from "../llm/providers/openai-embeddings";
import { conceptText, noteUnits, textHash, type EmbeddingUnit } from "./note-units";
import { ensureSpace, findPreviousLayout, findSpace, spaceKey, type VectorSpace } from "./space";
import { blobVector, readVector, storedVector, vectorBlob } from "./stored-vector";

// Notes read and written per round: a round is one write transaction, short enough not to hold writers up.
const NOTES_PER_ROUND = 32;
// Concepts past the heaviest this many are not embedded (merge suggestions look at the heaviest).
export const MAX_CONCEPTS = 2000;

export interface EmbedRun {
  db: Database;
  client: EmbeddingsClient;
  signal?: AbortSignal;
}

export interface EmbedResult {
  notesEmbedded: number;
  /** Inputs sent to the server, and passages whose vector was reused by content hash. */
  inputsEmbedded: number;
  reused: number;
}

interface PendingNote {
  id: number;
  title: string;
  content: string;
  tags: string;
  units: EmbeddingUnit[];
}

/**
 * Brings the user's vectors up to date in the configured model's space: clears the vectors of
 * deleted notes, embeds every note without a current row in `semantic_notes` (new, edited, or all
 * of them after a model change), re-using the vector of any passage whose text is unchanged, marks
 * the user ready once nothing is pending, and embeds the graph's concepts. Idempotent; a server
 * error is recorded for the status and thrown (the queue retries; a setup error is not retried).
 */
export async function embedUserNotes(run: EmbedRun, userId: number): Promise<EmbedResult> {
  const result: EmbedResult = { notesEmbedded: 0, inputsEmbedded: 0, reused: 0 };
  try {
    let space = await findSpace(run.db, run.client.settings);
    // Passes over the pending notes in id order; another pass picks up notes edited during one.
    for (let progressed = true; progressed; ) {
      progressed = false;
      if (space) await clearRemoved(run.db, space, userId);
      // The next round's vectors are asked for before this round is written: the server works while the database does.
      let next = await prepareRound(run, space, userId, 0, result);
      while (next) {
        run.signal?.throwIfAborted();
        const round = await next.embedded;
        space = round.space ?? space ?? (await ensureSpace(run.db, run.client.settings, round.dimensions!));
        next = await prepareRound(run, space, userId, next.lastId, result);
        // A failed prefetch must not go unobserved while this round is written; it is thrown when awaited.
        next?.embedded.catch(() => undefined);
        await writeRound(run.db, space, userId, round.notes, round.vectors, round.existing, result);
        progressed = true;
      }
    }
    if (space) {
      await clearRemoved(run.db, space, userId);
      await embedConcepts(run, space, userId, result);
    }
    await recordState(run.db, run.client.settings, userId, null);
    return result;
  } catch (error) {
    if (error instanceof EmbeddingsRequestError) await recordState(run.db, run.client.settings, userId, error.message);
    throw error;
  }
}

async function pendingNotes(db: Database, settings: EmbeddingsClient["settings"], space: VectorSpace | null, userId: number, afterId: number): Promise<PendingNote[]> {
  const key = space?.key ?? spaceKey(settings);
  const rows = await db.$client.execute({
    sql: `select n.id, n.title, n.content, n.tags from notes n
      left join semantic_notes s on s.note_id = n.id and s.space_key = :space
      where n.user_id = :user and n.id > :after and s.note_id is null order by n.id limit :limit`,
    args: { space: key, user: userId, after: afterId, limit: NOTES_PER_ROUND },
  });
  return rows.rows.map((row) => {
    const note = { id: Number(row.id), title: String(row.title), content: String(row.content), tags: String(row.tags) };
    return { ...note, units: noteUnits({ title: note.title, content: note.content, tags: JSON.parse(note.tags) as string[] }) };
  });
}

interface EmbeddedRound {
  notes: PendingNote[];
  /** Each unit's vector blob by content hash: reused from stored rows or just embedded. */
  vectors: Map<string, Uint8Array>;
  /** The notes' stored rows, to keep those whose text is unchanged. */
  existing: Map<number, { id: number; hash: string }[]>;
  /** Null when the space did not exist yet; then `dimensions` makes it. */
  space: VectorSpace | null;
  dimensions?: number;
}

/** Reads the next pending notes after `afterId` and starts embedding the texts no stored vector has; null when none are left. */
async function prepareRound(
  run: EmbedRun,
  known: VectorSpace | null,
  userId: number,
  afterId: number,
  result: EmbedResult,
): Promise<{ lastId: number; embedded: Promise<EmbeddedRound> } | null> {
  const { db } = run;
  const pending = await pendingNotes(db, run.client.settings, known, userId, afterId);
  if (pending.length === 0) return null;
  const wanted = new Set(pending.flatMap((note) => note.units.map((unit) => unit.hash)));
  // Vectors the user already has for these texts (unchanged passages, or the same text in another note).
  const vectors = new Map<string, Uint8Array>();
  const existing = new Map<number, { id: number; hash: string }[]>();
  if (known) await readStoredVectors(db, known, userId, wanted, vectors);
  // After an upgrade, the vectors the previous layout holds (no server call for those).
  const previous = await findPreviousLayout(db, run.client.settings);
  if (previous) await readStoredVectors(db, previous, userId, new Set([...wanted].filter((hash) => !vectors.has(hash))), vectors);
  if (known) {
    const mine = await db.$client.execute({
      sql: `select id, note_id, hash from ${known.table} where note_id in (select value from json_each(?)) and user_id = ?`,
      args: [JSON.stringify(pending.map((note) => note.id)), userId],
    });
    for (const row of mine.rows) {
      const list = existing.get(Number(row.note_id)) ?? [];
      list.push({ id: Number(row.id), hash: String(row.hash) });
      existing.set(Number(row.note_id), list);
    }
  }
  const toEmbed: { hash: string; text: string }[] = [];
  const seen = new Set<string>();
  for (const unit of pending.flatMap((note) => note.units)) {
    if (vectors.has(unit.hash) || seen.has(unit.hash)) continue;
    seen.add(unit.hash);
    toEmbed.push({ hash: unit.hash, text: unit.text });
  }
  const embedded = (async (): Promise<EmbeddedRound> => {
    if (toEmbed.length === 0) return { notes: pending, vectors, existing, space: known, dimensions: previous?.dimensions };
    const answer = await run.client.embed(
      toEmbed.map((item) => item.text),
      { signal: run.signal },
    );
    const length = answer.vectors[0]!.length;
    const expected = known?.dimensions ?? previous?.dimensions;
    if (expected !== undefined && length !== expected) {
      throw new EmbeddingsRequestError(
        `the embeddings server answered ${length}-dimension vectors for ${run.client.settings.model}, which gave ${expected} before (set EMBEDDINGS_DIMENSIONS, or EMBEDDINGS_MODEL to another name to start over)`,
        { stopsBuild: true },
      );
    }
    answer.vectors.forEach((vector, index) => vectors.set(toEmbed[index]!.hash, vectorBlob(vector)));
    result.inputsEmbedded += toEmbed.length;
    return { notes: pending, vectors, existing, space: known, dimensions: length };
  })();
  return { lastId: pending.at(-1)!.id, embedded };
}

/** Adds the user's stored vectors for these texts (by content hash) from `space` to `vectors`. */
async function readStoredVectors(db: Database, space: VectorSpace, userId: number, hashes: Set<string>, vectors: Map<string, Uint8Array>): Promise<void> {
  if (hashes.size === 0) return;
  const rows = await db.$client.execute({
    sql: `select hash, ${readVector("embedding")} as embedding from ${space.table} where user_id = ? and hash in (select value from json_each(?)) group by hash`,
    args: [userId, JSON.stringify([...hashes])],
  });
  for (const row of rows.rows) vectors.set(String(row.hash), new Uint8Array(blobVector(row.embedding).buffer));
}

/** One transaction: each note's rows made to match its units (unchanged ones kept), and the note marked current if its text is still the one embedded. */
async function writeRound(
  db: Database,
  space: VectorSpace,
  userId: number,
  pending: PendingNote[],
  vectors: Map<string, Uint8Array>,
  existing: Map<number, { id: number; hash: string }[]>,
  result: EmbedResult,
): Promise<void> {
  const now = Date.now();
  const statements: InStatement[] = [];
  for (const note of pending) {
    const rows = [...(existing.get(note.id) ?? [])];
    for (const unit of note.units) {
      const same = rows.findIndex((row) => row.hash === unit.hash);
      if (same >= 0) {
        // Same text, same vector: only where it sits may have moved.
        const [row] = rows.splice(same, 1);
        statements.push({ sql: `update ${space.table} set start = :start, "end" = :end, kind = :kind where id = :id`, args: { start: unit.start, end: unit.end, kind: unit.kind, id: row!.id } });
        result.reused++;
        continue;
      }
      const args: Record<string, InValue> = { user: userId, note: note.id, kind: unit.kind, start: unit.start, end: unit.end, hash: unit.hash, embedding: vectors.get(unit.hash)! };
      // Only for a note that still exists: one deleted (its account too) while the server worked gets no vectors.
      statements.push({
        sql: `insert into ${space.table} (user_id, note_id, kind, start, "end", hash, embedding)
          select :user, :note, :kind, :start, :end, :hash, ${storedVector(":embedding")} where exists (select 1 from notes where id = :note and user_id = :user)`,
        args,
      });
    }
    if (rows.length > 0) statements.push({ sql: `delete from ${space.table} where id in (select value from json_each(?))`, args: [JSON.stringify(rows.map((row) => row.id))] });
    // Marked current only if the note still holds the text just embedded; an edit meanwhile leaves it pending.
    statements.push({
      sql: `insert or replace into semantic_notes (note_id, user_id, space_key, embedded_at)
        select :note, :user, :space, :now where exists (select 1 from notes where id = :note and title = :title and content = :content and tags = :tags)`,
      args: { note: note.id, user: userId, space: space.key, now, title: note.title, content: note.content, tags: note.tags },
    });
  }
  await db.$client.batch(statements, "write");
  result.notesEmbedded += pending.length;
}

/** Drops the vectors of the user's deleted notes (a note restored meanwhile keeps its own). */
async function clearRemoved(db: Database, space: VectorSpace, userId: number): Promise<void> {
  const removed = await db.$client.execute({ sql: "select note_id from semantic_removed where user_id = ? limit 1000", args: [userId] });
  if (removed.rows.length === 0) return;
  const ids = JSON.stringify(removed.rows.map((row) => Number(row.note_id)));
  await db.$client.batch(
    [
      { sql: `delete from ${space.table} where note_id in (select value from json_each(:ids)) and note_id not in (select id from notes)`, args: { ids } },
      { sql: "delete from semantic_removed where note_id in (select value from json_each(:ids))", args: { ids } },
    ],
    "write",
  );
}

/**
 * The user's visible concepts (the heaviest MAX_CONCEPTS), each embedded twice: as label and
 * description (kind `concept`, for search) and as its label alone (kind `label`, for merge
 * suggestions: two concepts named in one sentence share a description, not a meaning). Vectors of
 * concepts gone or changed are dropped; concepts embedded before labels were gain theirs here.
 */
async function embedConcepts(run: EmbedRun, space: VectorSpace, userId: number, result: EmbedResult): Promise<void> {
  const { db } = run;
  const nodes = await db.$client.execute({
    sql: "select id, label, description from graph_nodes where user_id = ? and hidden = 0 order by weight desc, id limit ?",
    args: [userId, MAX_CONCEPTS],
  });
  // By node and kind: the text each vector should be of.
  const wanted = new Map<string, { nodeId: number; kind: "concept" | "label"; hash: string; text: string }>();
  for (const row of nodes.rows) {
    const nodeId = Number(row.id);
    const label = String(row.label);
    const text = conceptText({ label, description: String(row.description ?? "") });
    wanted.set(`${nodeId}:concept`, { nodeId, kind: "concept", hash: textHash("concept", text), text });
    wanted.set(`${nodeId}:label`, { nodeId, kind: "label", hash: textHash("label", label), text: label });
  }
  const stored = await db.$client.execute({ sql: `select id, node_id, kind, hash from ${space.table} where user_id = ? and kind in ('concept', 'label')`, args: [userId] });
  const stale: number[] = [];
  const have = new Set<string>();
  for (const row of stored.rows) {
    const key = `${row.node_id}:${row.kind}`;
    if (wanted.get(key)?.hash === String(row.hash) && !have.has(key)) have.add(key);
    else stale.push(Number(row.id));
  }
  const missing = [...wanted].filter(([key]) => !have.has(key)).map(([, item]) => item);
  if (missing.length === 0 && stale.length === 0) return;
  // A concept without a description is embedded as its label: one input for both vectors.
  const texts = [...new Set(missing.map((item) => item.text))];
  const answer = texts.length > 0 ? await run.client.embed(texts, { signal: run.signal }) : { vectors: [] };
  const vectorOf = new Map(texts.map((text, index) => [text, answer.vectors[index]!]));
  result.inputsEmbedded += texts.length;
  const statements: InStatement[] = [];
  if (stale.length > 0) statements.push({ sql: `delete from ${space.table} where id in (select value from json_each(?))`, args: [JSON.stringify(stale)] });
  for (const item of missing) {
    statements.push({
      sql: `insert into ${space.table} (user_id, node_id, kind, hash, embedding)
        select :user, :node, :kind, :hash, ${storedVector(":embedding")} where exists (select 1 from graph_nodes where id = :node and user_id = :user)`,
      args: { user: userId, node: item.nodeId, kind: item.kind, hash: item.hash, embedding: vectorBlob(vectorOf.get(item.text)!) },
    });
  }
  await db.$client.batch(statements, "write");
}

/** The user's state in the configured space: ready once nothing is pending, and the last error (null after a good run). */
async function recordState(db: Database, settings: EmbeddingsClient["settings"], userId: number, error: string | null): Promise<void> {
  const key = spaceKey(settings);
  const pending = error === null ? await db.$client.execute({
    sql: "select 1 from notes n left join semantic_notes s on s.note_id = n.id and s.space_key = :space where n.user_id = :user and s.note_id is null limit 1",
    args: { space: key, user: userId },
  }) : { rows: [1] };
  const ready = pending.rows.length === 0;
  await db.$client.execute({
    // `where exists`: a user deleted meanwhile has nothing to record (and no row to point at).
    sql: `insert into semantic_users (user_id, space_key, ready_at, error, updated_at)
      select :user, :space, :ready, :error, :now where exists (select 1 from users where id = :user)
      on conflict (user_id, space_key) do update set ready_at = coalesce(semantic_users.ready_at, excluded.ready_at), error = :error, updated_at = :now`,
    args: { user: userId, space: key, ready: ready ? Date.now() : null, error, now: Date.now() },
  });
}
