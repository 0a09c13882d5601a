import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { unzipSync } from "fflate";
import { openNotesDatabase, type NotesDatabase } from "../../../src/db/client";
import { newNoteRow } from "../../../src/modules/notes/create-note";
import { exportNotes } from "../../../src/modules/notes/export-notes";
import { notes } from "../../../src/db/schema";
import { notesDatabaseForThisFile } from "../../support/notes-database";

const onFile = await notesDatabaseForThisFile();
let inMemory: NotesDatabase;

// More than one page (100 notes), with text in several scripts and an empty note.
const NOTES = Array.from({ length: 230 }, (_, index) => ({
  title: index % 3 === 0 ? `笔记 ${index}` : `Note ${index}: ÅÄÖ`,
  content: index === 7 ? "" : `# Heading ${index}\n\n${"Body text ✓ 知识图谱. ".repeat(1 + (index % 40))}`,
  tags: index % 2 === 0 ? ["even", `n${index % 5}`] : [],
}));

beforeAll(async () => {
  inMemory = await openNotesDatabase({ url: ":memory:" });
  for (const database of [onFile, inMemory]) {
    await database.client.execute("insert into users (username, username_key, password_hash, created_at) values ('a', 'a', 'x', 0)");
    await database.db.insert(notes).values(NOTES.map((note, index) => newNoteRow(1, note, Date.UTC(2026, 0, 1) + index * 61_000)));
  }
});
afterAll(() => {
  inMemory.close();
});

async function exported(database: NotesDatabase, input: object = {}): Promise<Uint8Array> {
  return new Uint8Array(await exportNotes({ ctx: { db: database.db, userId: 1 }, input: input as never }).arrayBuffer());
}

describe("exportNotes", () => {
  test("a database that is not a local file (read through the client) exports the same ZIP as one that is", async () => {
    const fromFile = await exported(onFile);
    expect(await exported(inMemory)).toEqual(fromFile);
    const files = unzipSync(fromFile);
    expect(Object.keys(files)).toHaveLength(NOTES.length);
    const decoded = Object.values(files).map((file) => new TextDecoder().decode(file));
    for (const note of NOTES) expect(decoded.some((text) => text.endsWith(`---\n\n${note.content}`) && text.includes(`title: `))).toBe(true);
    expect(await exported(inMemory, { tag: "even" })).toEqual(await exported(onFile, { tag: "even" }));
  });
});
