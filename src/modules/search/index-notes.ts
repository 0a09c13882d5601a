import { sql, type SQL } from "drizzle-orm";
import type { Database } from "../../db/client";
import { batchStep, preparedPerDatabase, rawStatement, type BatchStep } from "../../db/prepared";
import { searchDocument, type SearchDocument } from "./search-document";

const BACKLOG_BATCH = 200;

/** A note's entry: its FTS row and its plain text, keyed by `noteId`, each written only when `when` holds. */
function entryInserts(noteId: SQL, fields: Record<keyof SearchDocument, unknown>, when: SQL = sql`1`): SQL[] {
  return [
    sql`insert into notes_fts (rowid, scope, title, tags, body, title_pairs, tags_pairs, body_pairs)
      select ${noteId}, ${fields.scope}, ${fields.title}, ${fields.tags}, ${fields.body},
        ${fields.titlePairs}, ${fields.tagsPairs}, ${fields.bodyPairs} where ${when}`,
    sql`insert or replace into search_texts (note_id, body) select ${noteId}, ${fields.text} where ${when}`,
  ];
}

/** Each field of a document as a placeholder of its own name (the compiler checks none is missing). */
const documentPlaceholders: Record<keyof SearchDocument, unknown> = {
  scope: sql.placeholder("scope"),
  title: sql.placeholder("title"),
  tags: sql.placeholder("tags"),
  body: sql.placeholder("body"),
  titlePairs: sql.placeholder("titlePairs"),
  tagsPairs: sql.placeholder("tagsPairs"),
  bodyPairs: sql.placeholder("bodyPairs"),
  text: sql.placeholder("text"),
};

// A note just inserted has no entry to replace (deleting a note deletes its entry, so a reused id
// has none either). Its id is `last_insert_rowid()`: after the INSERT it is the note's (rows its
// triggers insert do not change it once they end), and each statement here keeps it, since each
// writes the row keyed by that same id.
const newEntryStatements = preparedPerDatabase((db) => ({
  inserts: entryInserts(sql`last_insert_rowid()`, documentPlaceholders).map((statement) => rawStatement(db, statement)),
  backlog: rawStatement(db, sql`delete from search_backlog where note_id = last_insert_rowid()`),
}));

/** The index entry of the note the batch's previous step inserted: steps to follow that INSERT in its write batch. */
export function newNoteEntrySteps(db: Database, document: SearchDocument): BatchStep[] {
  const { inserts, backlog } = newEntryStatements(db);
  const values = { ...document };
  return [...inserts.map((statement) => batchStep(statement, values)), batchStep(backlog)];
}

// An edited note's entry replaces its old one. Its statements follow the note's UPDATE in the same
// write batch, and each runs only where the stored note holds the text its entry was built from:
// an UPDATE that missed (the note changed since it was read) leaves the index as it was, since the
// update is then tried again from the new text.
const editedEntryStatements = preparedPerDatabase((db) => {
  const noteId = sql`${sql.placeholder("noteId")}`;
  const stored = sql`exists (select 1 from notes where id = ${noteId} and title = ${sql.placeholder("noteTitle")}
    and content = ${sql.placeholder("noteContent")} and tags = ${sql.placeholder("noteTags")})`;
  return {
    remove: rawStatement(db, sql`delete from notes_fts where rowid = ${noteId} and ${stored}`),
    inserts: entryInserts(noteId, documentPlaceholders, stored).map((statement) => rawStatement(db, statement)),
    // The UPDATE's trigger left a backlog row; the entry just written makes it done.
    backlog: rawStatement(db, sql`delete from search_backlog where note_id = ${noteId} and ${stored}`),
  };
});

/** The index entry of an edited note: steps to follow the UPDATE that wrote `note` (its stored columns) in its write batch. */
export function editedNoteEntrySteps(db: Database, note: { id: number; title: string; content: string; tags: string }, document: SearchDocument): BatchStep[] {
  const { remove, inserts, backlog } = editedEntryStatements(db);
  const values = { ...document, noteId: note.id, noteTitle: note.title, noteContent: note.content, noteTags: note.tags };
  return [batchStep(remove, values), ...inserts.map((statement) => batchStep(statement, values)), batchStep(backlog, values)];
}

/**
 * Indexes the notes other writers (imports, the migration's backfill) left in the backlog, for one
 * user or all. An entry is written only while its backlog row is the one read, so a note edited
 * meanwhile is indexed again from its new text and never from the old.
 */
export async function catchUpSearchIndex(db: Database, options: { userId?: number; signal?: AbortSignal } = {}): Promise<number> {
  let indexed = 0;
  while (!options.signal?.aborted) {
    const rows = await db.all<{ seq: number; noteId: number; userId: number | null; title: string | null; content: string | null; tags: string | null }>(sql`
      select b.seq, b.note_id as noteId, n.user_id as userId, n.title, n.content, n.tags
      from search_backlog b left join notes n on n.id = b.note_id
      ${options.userId === undefined ? sql`` : sql`where b.user_id = ${options.userId}`}
      order by b.seq limit ${BACKLOG_BATCH}`);
    if (rows.length === 0) break;
    const statements: SQL[] = [];
    for (const row of rows) {
      const unchanged = sql`exists (select 1 from search_backlog where seq = ${row.seq})`;
      if (row.userId !== null) {
        const document = searchDocument({ userId: row.userId, title: row.title!, content: row.content!, tags: JSON.parse(row.tags!) as string[] });
        statements.push(sql`delete from notes_fts where rowid = ${row.noteId} and ${unchanged}`, ...entryInserts(sql`${row.noteId}`, document, unchanged));
      }
      statements.push(sql`delete from search_backlog where seq = ${row.seq}`);
    }
    const [first, ...rest] = statements.map((statement) => db.run(statement));
    await db.batch([first!, ...rest]);
    indexed += rows.length;
    // libSQL answers a local file synchronously, so without this the whole backlog would hold the
    // event loop: no request served, no timer run, until the last note is indexed.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return indexed;
}
