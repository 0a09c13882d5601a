import { sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { log } from "../../log";
import { removeArchiveFile } from "../archives/archive-file";
import type { FileStorage } from "../files/blob-store";
import { removeUnclaimedBlobs } from "../files/release-files";
import { removeTaskMedia } from "../transcripts/media-file";

/** Rows deleted per statement before the last step: each a short write, so other writers are not held up long. */
const BATCH = 500;

/**
 * Tables emptied of the account's rows first, in this order: its credentials (nothing acts for it
 * any more), its webhooks (nothing more is sent), then the tables whose deletes fire triggers or
 * cascade widely (notes take their search entries, tags, graph mentions and extractions with them,
 * and leave `semantic_removed` rows; versions leave `file_releases` rows), before the tables those
 * triggers write.
 */
const FIRST = ["sessions", "access_tokens", "oauth_logins", "oauth_codes", "event_tickets", "webhooks", "notes", "trashed_notes", "note_versions", "graph_nodes"];

export interface ErasePlaces {
  db: Database;
  /** Where stored images live: bytes no other account claims are removed. */
  files?: FileStorage;
  /** Where uploads wait for their tasks: the account's waiting archives and recordings are removed. */
  uploadDirs?: { archivesDir?: string; mediaDir?: string };
}

/**
 * Deletes an account and everything it owns. Every table with a `user_id` column is found in the
 * schema (the vector tables of search by meaning too, and any table added later), and emptied of
 * the account's rows in short batches; the last step, in one transaction, deletes what is left
 * (rows a job wrote meanwhile) and the account itself, with the rows keyed by the account without
 * a column (throttles, transcripts of its own media). Then the files on disk that no other account
 * claims, and the uploads its tasks were waiting on.
 */
export async function eraseAccount(places: ErasePlaces, user: { id: number; usernameKey: string }): Promise<void> {
  const { db } = places;
  const uploads = await waitingUploads(db, user.id);
  const tables = await userTables(db);
  const hashes: string[] = [];
  for (const table of tables) {
    for (;;) {
      const deleted = await deleteRows(db, table, user.id, BATCH);
      if (table === "files") hashes.push(...deleted);
      if (deleted.length < BATCH) break;
      // A local database answers synchronously: let requests in between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  await db.transaction(async (tx) => {
    // In the same order, so rows that a note's or a version's delete writes through triggers are deleted after it.
    for (const table of tables) {
      const deleted = await deleteRows(tx, table, user.id);
      if (table === "files") hashes.push(...deleted);
    }
    await tx.run(sql`delete from throttles where key in (${`2fa:user:${user.id}`}, ${`login:user:${user.usernameKey}`})`);
    for (const prefix of [`pasted:${user.id}:`, `audio:${user.id}:`]) {
      // ';' is the byte after ':': the range is exactly the keys with the prefix, read from the primary key.
      const end = `${prefix.slice(0, -1)};`;
      await tx.run(sql`delete from transcripts where media_key >= ${prefix} and media_key < ${end}`);
      await tx.run(sql`delete from transcript_pieces where media_key >= ${prefix} and media_key < ${end}`);
    }
    await tx.run(sql`delete from users where id = ${user.id}`);
  });
  await removeUnclaimedBlobs({ db, storage: places.files }, hashes).catch((error: unknown) =>
    log.warn(`account ${user.id} deleted; some of its stored files stay until the files sweep`, error),
  );
  for (const upload of uploads) {
    if (places.uploadDirs?.archivesDir) removeArchiveFile(places.uploadDirs.archivesDir, upload.archiveFile);
    if (places.uploadDirs?.mediaDir) removeTaskMedia(places.uploadDirs.mediaDir, upload.taskId, upload.recording);
  }
}

type Writer = Pick<Database, "all">;

/**
 * Deletes the account's rows of `table`, at most `limit`; returns the deleted rows' `sha256` for
 * `files` (their bytes may go next), and otherwise one entry per row.
 */
async function deleteRows(db: Writer, table: string, userId: number, limit?: number): Promise<string[]> {
  const name = sql.identifier(table);
  const which = limit === undefined ? sql`user_id = ${userId}` : sql`rowid in (select rowid from ${name} where user_id = ${userId} limit ${limit})`;
  const returning = table === "files" ? sql.raw("sha256") : sql.raw("1 as sha256");
  const rows = await db.all<{ sha256: string }>(sql`delete from ${name} where ${which} returning ${returning}`);
  return rows.map((row) => String(row.sha256));
}

/** Every table with a `user_id` column, those of FIRST first in its order, then by name. */
export async function userTables(db: Database): Promise<string[]> {
  const rows = await db.all<{ name: string }>(sql`
    select m.name as name from sqlite_master m join pragma_table_info(m.name) p
    where m.type = 'table' and p.name = 'user_id' and m.name not like 'sqlite_%'`);
  const rank = (name: string) => (FIRST.includes(name) ? FIRST.indexOf(name) : FIRST.length);
  return rows.map((row) => row.name).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** The uploads the account's unfinished tasks wait on: an archive, or a recording and what its transcription cut. */
async function waitingUploads(db: Database, userId: number): Promise<{ taskId: number; archiveFile: string | null; recording?: string }[]> {
  const rows = await db.all<{ id: number; archiveFile: string | null; transcription: string | null }>(sql`
    select id, archive_file as archiveFile, transcription from import_tasks where user_id = ${userId} and status in ('pending', 'running')`);
  return rows.map((row) => ({ taskId: row.id, archiveFile: row.archiveFile, recording: recordingOf(row.transcription) }));
}

function recordingOf(transcription: string | null): string | undefined {
  if (!transcription) return undefined;
  try {
    const source = (JSON.parse(transcription) as { document?: { media?: { source?: { upload?: unknown } } } }).document?.media?.source;
    return typeof source?.upload === "string" ? source.upload : undefined;
  } catch {
    return undefined;
  }
}
