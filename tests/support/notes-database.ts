import { afterAll } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { openNotesDatabase, type NotesDatabase } from "../../src/db/client";
import { temporaryDirectory } from "./temporary-directory";

export interface TemporaryNotesDatabase extends NotesDatabase {
  /** The directory that holds it, for anything else the test keeps beside it (files, other databases). */
  dir: string;
  /** The database file, `rhizome.db` as a server names it. */
  file: string;
  /** Closes it and deletes its directory. */
  remove(): void;
}

/** A notes database in a new temp directory, opened (so migrated and set up) as the service opens its own. */
export async function openTemporaryNotesDatabase(prefix = "rhizome-notes-"): Promise<TemporaryNotesDatabase> {
  const dir = temporaryDirectory(prefix);
  const file = path.join(dir, "rhizome.db");
  const database = await openNotesDatabase({ url: `file:${file}` }).catch((error: unknown) => {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  return {
    ...database,
    dir,
    file,
    remove() {
      database.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A temporary notes database for this file's tests, closed and deleted once they are done. Call it at
 * the top of a test file (`const database = await notesDatabaseForThisFile()`), where Bun registers
 * the removal for the whole file; inside a hook Bun runs it too early.
 */
export async function notesDatabaseForThisFile(): Promise<TemporaryNotesDatabase> {
  const database = await openTemporaryNotesDatabase();
  afterAll(() => database.remove());
  return database;
}
