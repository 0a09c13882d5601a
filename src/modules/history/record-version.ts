import { desc, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../../db/client";
import { noteVersions } from "../../db/schema";
import { batchStep, preparedPerDatabase, rawStatement, type BatchStep } from "../../db/prepared";
import { readStatements } from "../../db/read-statements";
import { referencedFileIds } from "../files/file-links";
import { historySettings } from "./settings";
import { applyDelta, textDelta, type TextDelta } from "./text-delta";
import { storedWriter, type Writer } from "./writer";

/** Edits by one client, each within this long of the one before, are one version. */
export const COALESCE_MS = 60_000;

/** A note's text as stored before a write. */
export interface StoredText {
  title: string;
  content: string;
  /** JSON, as stored. */
  tags: string;
  updatedAt: number;
  writtenBy: string | null;
  sourcePlatform: string | null;
}

export interface NewText {
  title: string;
  content: string;
  tags: string;
}

/** The version statements, over values given by `value` (placeholders for prepared statements, or bound values). */
function versionSql(value: (name: string) => unknown) {
  // Each runs only when the note's write in the same batch landed: the note then carries the new `updated_at`.
  const landed = sql`exists (select 1 from notes where id = ${value("noteId")} and updated_at = ${value("updatedAt")})`;
  return {
    insert: sql`insert into note_versions (note_id, user_id, version, title, tags, size, delta, created_at, replaced_at, by_kind, by_name)
      select ${value("noteId")}, ${value("userId")}, coalesce((select max(version) from note_versions where note_id = ${value("noteId")}), 0) + 1,
        ${value("title")}, ${value("tags")}, ${value("size")}, ${value("delta")}, ${value("createdAt")}, ${value("updatedAt")}, ${value("byKind")}, ${value("byName")}
      where ${landed}`,
    // The stored files the new version's text shows (a JSON array of ids), kept while the version is.
    files: sql`insert or ignore into note_version_files (user_id, file_id, note_id, version)
      select ${value("userId")}, value, ${value("noteId")}, (select max(version) from note_versions where note_id = ${value("noteId")})
      from json_each(${value("fileIds")}) where ${landed}`,
    // A coalesced edit: the newest version stays the text before the client's run of edits, its delta now from the new text.
    rebase: sql`update note_versions set delta = ${value("delta")} where note_id = ${value("noteId")} and version = ${value("version")} and ${landed}`,
    prune: sql`delete from note_versions where note_id = ${value("noteId")}
      and version <= (select max(version) from note_versions where note_id = ${value("noteId")}) - ${value("keep")} and ${landed}`,
  };
}

const statements = preparedPerDatabase((db) => {
  const built = versionSql((name) => sql.placeholder(name));
  return { insert: rawStatement(db, built.insert), files: rawStatement(db, built.files), rebase: rawStatement(db, built.rebase), prune: rawStatement(db, built.prune) };
});

const newestVersion = preparedPerDatabase((db) =>
  db
    .select({ version: noteVersions.version, delta: noteVersions.delta })
    .from(noteVersions)
    .where(eq(noteVersions.noteId, sql.placeholder("noteId")))
    .orderBy(desc(noteVersions.version))
    .limit(1)
    .prepare(),
);

type VersionWrite = { noteId: number; userId: number; stored: StoredText; next: NewText; writer: Writer; updatedAt: number };
type PlannedStatement = { statement: "insert" | "files" | "rebase" | "prune"; values: Record<string, unknown> };

/**
 * What keeping the replaced text takes: a new version, or — for another quick edit by the client
 * that wrote the current text — the newest version re-based on the new text; then the oldest
 * versions past NOTE_VERSIONS_MAX go. Nothing when the text does not change.
 */
async function planVersion(db: Database, write: VersionWrite): Promise<PlannedStatement[]> {
  const { stored, next } = write;
  if (stored.title === next.title && stored.content === next.content && stored.tags === next.tags) return [];
  if (historySettings(db).maxVersions === 0) return [];
  const author = storedWriter(stored.writtenBy, stored.sourcePlatform);
  const keys = { noteId: write.noteId, updatedAt: write.updatedAt };
  const prune = { statement: "prune" as const, values: { ...keys, keep: historySettings(db).maxVersions } };
  if (write.writer.key !== null && author.key === write.writer.key && write.updatedAt - stored.updatedAt <= COALESCE_MS) {
    const newest = await readStatements(db).get(newestVersion(db), { noteId: write.noteId });
    if (newest) {
      const newestText = applyDelta(stored.content, JSON.parse(newest.delta) as TextDelta);
      return [{ statement: "rebase", values: { ...keys, version: newest.version, delta: JSON.stringify(textDelta(next.content, newestText)) } }, prune];
    }
  }
  const values = {
    ...keys,
    userId: write.userId,
    title: stored.title,
    tags: stored.tags,
    size: Buffer.byteLength(stored.content),
    delta: JSON.stringify(textDelta(next.content, stored.content)),
    createdAt: stored.updatedAt,
    byKind: author.kind,
    byName: author.name,
  };
  // Only a text that shows stored files costs the statement that records them.
  const fileIds = referencedFileIds(stored.content);
  const files = fileIds.length === 0 ? [] : [{ statement: "files" as const, values: { ...keys, userId: write.userId, fileIds: JSON.stringify(fileIds) } }];
  return [{ statement: "insert", values }, ...files, prune];
}

/**
 * The steps that keep the text a write replaces, for the write's own batch right after the note's
 * UPDATE (which sets `updated_at` to `updatedAt`), on statements prepared once.
 */
export async function versionSteps(db: Database, write: VersionWrite): Promise<BatchStep[]> {
  const prepared = statements(db);
  return (await planVersion(db, write)).map(({ statement, values }) => batchStep(prepared[statement], values));
}

/** The same as drizzle statements, for writers that batch through drizzle (re-imports, restores). */
export async function versionStatements(db: Database, write: VersionWrite): Promise<BatchItem<"sqlite">[]> {
  return (await planVersion(db, write)).map(({ statement, values }) => db.run(versionSql((name) => values[name])[statement]));
}

/** The JSON `notes.written_by` holds for a writer. */
export const writtenBy = (writer: Writer) => JSON.stringify(writer);
