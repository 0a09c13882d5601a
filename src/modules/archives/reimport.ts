import { createHash } from "node:crypto";
import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { importSources, notes } from "../../db/schema";
import type { Database } from "../../db/client";
import { newNoteRow } from "../notes/create-note";
import { plainTextExcerpt } from "../notes/excerpt";
import { nextUpdatedAt, toNoteSource } from "../notes/note-record";
import type { NoteSource } from "../notes/schemas";
import { versionStatements, writtenBy } from "../history/record-version";
import { importWriter } from "../history/writer";

export type Outcome = "created" | "updated" | "unchanged" | "skipped";

/** A note an import wants to write, and the key that finds it again (null: it has none, always a new note). */
export interface IncomingNote {
  title: string;
  content: string;
  tags: string[];
  /** Epoch ms; null keeps the note's (or, for a new note, now). */
  createdAt: number | null;
  source: NoteSource;
  sourceKey: string | null;
  /** Our own export, imported by its owner: matched by note id. */
  exported?: { id: number; updatedAt: number | null; source: NoteSource };
}

export interface PlannedWrite {
  outcome: Outcome;
  /**
   * The existing note; null when one is created (then its source row, or `last_insert_rowid()` right
   * after `statements[0]`, has its id). Of many notes created at once, the first carries the
   * statements that create them all and the others none.
   */
  noteId: number | null;
  /** Why a note was left alone. */
  reason?: string;
  statements: BatchItem<"sqlite">[];
}

const EDITED_HERE = "The note was edited here since it was last imported; it was left as it is";
const EDITED_SINCE_EXPORT = "The note was edited here since this export was made; it was left as it is";

/**
 * The re-import rule (CONTRACT "Archive import and re-import"): a source imported before is found
 * by its key and never duplicated — unchanged when the source is as last imported, updated when
 * the note was not edited here since, skipped otherwise. The owner's own export is matched by note
 * id instead. Returns the statements to run in the caller's transaction (with its task update).
 */
export async function planNoteWrite(db: Database, userId: number, note: IncomingNote, options: PlanOptions = {}): Promise<PlannedWrite> {
  return (await planNoteWrites(db, userId, [note], options))[0]!;
}

export interface PlanOptions {
  now?: number;
  /** A condition every INSERT of a new note must meet, checked inside the caller's transaction. */
  guard?: SQL;
}

/** The rule for many notes at once (an archive's slice): what is known of them is read in two queries, not one per note. */
export async function planNoteWrites(db: Database, userId: number, incoming: IncomingNote[], { now = Date.now(), guard = sql`1` }: PlanOptions = {}): Promise<PlannedWrite[]> {
  const exportedIds = incoming.flatMap((note) => (note.exported ? [note.exported.id] : []));
  const keys = incoming.flatMap((note) => (note.sourceKey ? [note.sourceKey] : []));
  const [ownRows, knownRows] = await Promise.all([
    exportedIds.length ? db.select().from(notes).where(and(eq(notes.userId, userId), inArray(notes.id, exportedIds))) : [],
    keys.length
      ? db
          .select({ id: importSources.id, key: importSources.sourceKey, noteId: importSources.noteId, hash: importSources.hash, recordedAt: importSources.noteUpdatedAt, updatedAt: notes.updatedAt })
          .from(importSources)
          .innerJoin(notes, eq(notes.id, importSources.noteId))
          .where(and(eq(importSources.userId, userId), inArray(importSources.sourceKey, keys)))
      : [],
  ]);
  const own = new Map(ownRows.map((row) => [row.id, row]));
  const known = new Map(knownRows.map((row) => [row.key, row]));
  const plans: Plan[] = incoming.map((note) => {
    const ownNote = note.exported && own.get(note.exported.id);
    if (ownNote) return planOwnNote(db, ownNote, note, note.exported!, now);
    return planBySource(db, userId, note, note.sourceKey ? known.get(note.sourceKey) : undefined, now, guard);
  });
  await keepReplacedVersions(db, userId, plans, incoming, now);
  const creates = plans.filter((plan) => plan.created !== undefined);
  // Many new notes: two statements for all of them (preparing two statements a note was a fifth of an archive import's CPU).
  if (creates.length > 1) {
    const statements = createMany(db, userId, creates.map((plan) => plan.created!), now, guard);
    creates.forEach((plan, index) => (plan.statements = index === 0 ? statements : []));
  }
  return plans.map(({ created: _, readUpdatedAt: __, ...plan }) => plan);
}

/**
 * New notes in one INSERT … SELECT, and their source rows in one more. One INSERT gives its rows
 * consecutive ids (each the largest so far, the write lock held), so the i-th new note's id is the
 * table's largest id less (count - 1 - i).
 */
function createMany(db: Database, userId: number, created: NonNullable<Plan["created"]>[], now: number, guard: SQL): BatchItem<"sqlite">[] {
  const rows = created.map(({ row }) => [row.title, row.content, row.excerpt, row.tags, row.sourcePlatform, row.sourceUrl, row.sourceAuthor, row.sourcePublishedAt, row.createdAt, row.updatedAt]);
  const statements: BatchItem<"sqlite">[] = [
    db.run(sql`
      insert into ${notes} (user_id, title, content, excerpt, tags, source_platform, source_url, source_author, source_published_at, created_at, updated_at)
      select ${userId}, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7, value ->> 8, value ->> 9
      from json_each(${JSON.stringify(rows)}) where ${guard} order by key`),
  ];
  const sources = created.flatMap(({ sourceKey, hash }, index) => (sourceKey ? [[index, sourceKey, hash]] : []));
  if (sources.length > 0) {
    statements.push(
      db.run(sql`
        insert into ${importSources} (user_id, source_key, note_id, hash, note_updated_at)
        select ${userId}, value ->> 1, (select max(id) from ${notes}) - ${created.length - 1} + (value ->> 0), value ->> 2, ${now}
        from json_each(${JSON.stringify(sources)}) where ${guard}
        on conflict (user_id, source_key) do update set note_id = excluded.note_id, hash = excluded.hash, note_updated_at = excluded.note_updated_at`),
    );
  }
  return statements;
}

/** A plan, with what a created note's row and source row hold (for writing many at once), and an updated note's `updated_at` as read. */
type Plan = PlannedWrite & { created?: { row: NoteRow; sourceKey: string | null; hash: string }; readUpdatedAt?: number };
type NoteRow = ReturnType<typeof newNoteRow>;

function planBySource(
  db: Database,
  userId: number,
  note: IncomingNote,
  known: { id: number; noteId: number; hash: string; recordedAt: number; updatedAt: number } | undefined,
  now: number,
  guard: SQL,
): Plan {
  const hash = noteHash(note);
  if (!known) {
    const row = newNoteRow(userId, note, now);
    if (note.createdAt !== null) row.createdAt = note.createdAt;
    // INSERT … SELECT … WHERE guard: a caller's condition (its task still running) decides, inside its transaction, whether anything is written.
    const statements: BatchItem<"sqlite">[] = [
      db.run(sql`
        insert into ${notes} (user_id, title, content, excerpt, tags, source_platform, source_url, source_author, source_published_at, created_at, updated_at)
        select ${row.userId}, ${row.title}, ${row.content}, ${row.excerpt}, ${row.tags}, ${row.sourcePlatform}, ${row.sourceUrl},
          ${row.sourceAuthor}, ${row.sourcePublishedAt}, ${row.createdAt}, ${row.updatedAt}
        where ${guard}`),
    ];
    if (note.sourceKey) {
      // Right after the note's INSERT, last_insert_rowid() is the note (its triggers' rows do not count).
      // A source row left by a note deleted since is taken over.
      statements.push(
        db.run(sql`
          insert into ${importSources} (user_id, source_key, note_id, hash, note_updated_at)
          select ${userId}, ${note.sourceKey}, last_insert_rowid(), ${hash}, ${now} where ${guard}
          on conflict (user_id, source_key) do update set note_id = excluded.note_id, hash = excluded.hash, note_updated_at = excluded.note_updated_at`),
      );
    }
    return { outcome: "created", noteId: null, statements, created: { row, sourceKey: note.sourceKey, hash } };
  }
  if (known.hash === hash) return { outcome: "unchanged", noteId: known.noteId, statements: [] };
  if (known.updatedAt !== known.recordedAt) return { outcome: "skipped", noteId: known.noteId, reason: EDITED_HERE, statements: [] };
  return {
    outcome: "updated",
    noteId: known.noteId,
    readUpdatedAt: known.updatedAt,
    statements: [
      updateStatement(db, known.noteId, known.updatedAt, note, note.source, now),
      // Only when the note was updated just now: an edit made here meanwhile stays, and shows as one.
      db
        .update(importSources)
        .set({ hash, noteUpdatedAt: now })
        .where(and(eq(importSources.id, known.id), sql`exists (select 1 from ${notes} where ${notes.id} = ${known.noteId} and ${notes.updatedAt} = ${now})`)),
    ],
  };
}

function planOwnNote(
  db: Database,
  own: typeof notes.$inferSelect,
  note: IncomingNote,
  exported: NonNullable<IncomingNote["exported"]>,
  now: number,
): Plan {
  const same =
    own.title === note.title &&
    own.content === note.content &&
    own.tags === JSON.stringify(note.tags) &&
    (note.createdAt === null || own.createdAt === note.createdAt) &&
    JSON.stringify(toNoteSource(own)) === JSON.stringify(exported.source);
  if (same) return { outcome: "unchanged", noteId: own.id, statements: [] };
  if (exported.updatedAt === null || own.updatedAt > exported.updatedAt) {
    return { outcome: "skipped", noteId: own.id, reason: EDITED_SINCE_EXPORT, statements: [] };
  }
  return { outcome: "updated", noteId: own.id, readUpdatedAt: own.updatedAt, statements: [updateStatement(db, own.id, own.updatedAt, note, exported.source, now)] };
}

/**
 * A re-import rewrites a note's text: what it replaces is kept as a version, written in the same
 * transaction as the update (and only if the update lands, see versionStatements).
 */
async function keepReplacedVersions(db: Database, userId: number, plans: Plan[], incoming: IncomingNote[], now: number): Promise<void> {
  const updates = plans.flatMap((plan, index) => (plan.outcome === "updated" && plan.readUpdatedAt !== undefined ? [{ plan, note: incoming[index]!, readUpdatedAt: plan.readUpdatedAt }] : []));
  if (updates.length === 0) return;
  const rows = await db
    .select({ id: notes.id, title: notes.title, content: notes.content, tags: notes.tags, updatedAt: notes.updatedAt, writtenBy: notes.writtenBy, sourcePlatform: notes.sourcePlatform })
    .from(notes)
    .where(and(eq(notes.userId, userId), inArray(notes.id, updates.map(({ plan }) => plan.noteId!))));
  const stored = new Map(rows.map((row) => [row.id, row]));
  for (const { plan, note, readUpdatedAt } of updates) {
    const text = stored.get(plan.noteId!);
    // Changed since the plan read it: the update will not land, and neither would its version.
    if (!text || text.updatedAt !== readUpdatedAt) continue;
    plan.statements.push(
      ...(await versionStatements(db, {
        noteId: plan.noteId!,
        userId,
        stored: text,
        next: { title: note.title, content: note.content, tags: JSON.stringify(note.tags) },
        writer: importWriterOf(note.source),
        updatedAt: nextUpdatedAt(readUpdatedAt, now),
      })),
    );
  }
}

const importWriterOf = (source: NoteSource) => importWriter(source?.platform ?? "archive");

/** The note's new content, unless it changed here since it was read (`updatedAt`). */
function updateStatement(db: Database, noteId: number, updatedAt: number, note: IncomingNote, source: NoteSource, now: number) {
  return db
    .update(notes)
    .set({
      title: note.title,
      content: note.content,
      excerpt: plainTextExcerpt(note.content),
      tags: JSON.stringify(note.tags),
      ...(note.createdAt !== null && { createdAt: note.createdAt }),
      sourcePlatform: source?.platform ?? null,
      sourceUrl: source?.url ?? null,
      sourceAuthor: source?.author ?? null,
      sourcePublishedAt: source?.published_at ? Date.parse(source.published_at) : null,
      updatedAt: nextUpdatedAt(updatedAt, now),
      writtenBy: writtenBy(importWriterOf(note.source)),
    })
    .where(and(eq(notes.id, noteId), eq(notes.updatedAt, updatedAt)));
}

/** What an import would write, so an unchanged source is recognised whatever happened to the note. */
function noteHash(note: IncomingNote): string {
  return createHash("sha256").update(JSON.stringify([note.title, note.content, note.tags, note.createdAt, note.source])).digest("hex");
}
