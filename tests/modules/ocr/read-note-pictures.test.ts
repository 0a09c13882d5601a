import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import { files, notes, ocrTexts, users } from "../../../src/db/schema";
import { blobPath } from "../../../src/modules/files/blob-store";
import { createNote } from "../../../src/modules/notes/create-note";
import { updateNote } from "../../../src/modules/notes/update-note";
import { hasPicturesToRead } from "../../../src/modules/ocr/ocr-queue";
import { forgetUnstoredTexts, keptTexts } from "../../../src/modules/ocr/ocr-store";
import { readNotePictures, type OcrRun } from "../../../src/modules/ocr/read-note-pictures";
import { notesDatabaseForThisFile } from "../../support/notes-database";

const { db, dir } = await notesDatabaseForThisFile();
const filesDir = path.join(dir, "files");
const [user] = await db.insert(users).values({ username: "ada", usernameKey: "ada", passwordHash: "x", createdAt: 0 }).returning();
const userId = user!.id;

/** A stored picture whose "text" the fake reader returns: the hash is the text's, so each is its own file. */
async function storedPicture(text: string): Promise<number> {
  const sha256 = Buffer.from(text).toString("hex").padEnd(64, "0").slice(0, 64);
  fs.mkdirSync(path.dirname(blobPath(filesDir, sha256)), { recursive: true });
  fs.writeFileSync(blobPath(filesDir, sha256), text);
  const [row] = await db.insert(files).values({ userId, sha256, mime: "image/png", size: text.length, createdAt: Date.now() }).returning();
  return row!.id;
}

function runWith(overrides: Partial<OcrRun> = {}) {
  const asked: string[] = [];
  const later: Date[] = [];
  const run: OcrRun = {
    db,
    filesDir,
    maxPictures: 30,
    quietMs: 0,
    async read(file) {
      asked.push(file);
      return { lines: [fs.readFileSync(file, "utf8")] };
    },
    async later(runAt) {
      later.push(runAt);
    },
    ...overrides,
  };
  return { run, asked, later };
}

const contentOf = async (id: number) => (await db.select({ content: notes.content }).from(notes).where(eq(notes.id, id)))[0]!.content;

describe("the OCR job of a note", () => {
  test("a person's edit made while pictures are read wins; the job reads the note again and writes around it", async () => {
    const picture = await storedPicture("Words in a picture");
    const note = await createNote({ ctx: { db, userId }, input: { title: "t", content: `![](/api/files/${picture})`, tags: [] } });
    const { run } = runWith({
      async read(file) {
        // The person saves while the picture is being read.
        await updateNote({ ctx: { db, userId }, input: { id: note.id, content: `My caption.\n\n![](/api/files/${picture})` } });
        return { lines: [fs.readFileSync(file, "utf8")] };
      },
    });
    expect(await readNotePictures(run, { userId, noteId: note.id })).toBe("written");
    expect(await contentOf(note.id)).toBe(`My caption.\n\n![](/api/files/${picture})\n\n## Text in pictures\n\n[picture 1](/api/files/${picture}) Words in a picture`);
  });

  test("a note just saved by a person is read now and written after the quiet time", async () => {
    const picture = await storedPicture("Quiet please");
    const note = await createNote({ ctx: { db, userId }, input: { title: "t", content: `![](/api/files/${picture})`, tags: [] } });
    await updateNote({ ctx: { db, userId }, input: { id: note.id, content: `Typing… ![](/api/files/${picture})` } });
    const waiting = runWith({ quietMs: 60_000 });
    expect(await readNotePictures(waiting.run, { userId, noteId: note.id })).toBe("later");
    expect(waiting.asked).toHaveLength(1);
    expect(waiting.later[0]!.getTime()).toBeGreaterThan(Date.now() + 50_000);
    expect(await contentOf(note.id)).toBe(`Typing… ![](/api/files/${picture})`);
    // Its time come, the text kept by hash is written without reading the picture again.
    const due = runWith();
    expect(await readNotePictures(due.run, { userId, noteId: note.id })).toBe("written");
    expect(due.asked).toEqual([]);
  });

  test("pictures already given are not given again: a person may delete the section", async () => {
    const picture = await storedPicture("Given once");
    const note = await createNote({ ctx: { db, userId }, input: { title: "t", content: `![](/api/files/${picture})`, tags: [] } });
    expect(await hasPicturesToRead(db, userId, note.id, 30)).toBe(true);
    // The note's event goes out once the pictures are recorded: the outlet then queues no second job.
    const heard: boolean[] = [];
    const changes = { publish: async () => void heard.push(await hasPicturesToRead(db, userId, note.id, 30)) };
    expect(await readNotePictures(runWith({ changes }).run, { userId, noteId: note.id })).toBe("written");
    expect(heard).toEqual([false]);
    await updateNote({ ctx: { db, userId }, input: { id: note.id, content: `![](/api/files/${picture})` } });
    expect(await hasPicturesToRead(db, userId, note.id, 30)).toBe(false);
    expect(await readNotePictures(runWith().run, { userId, noteId: note.id })).toBe("unchanged");
    expect(await contentOf(note.id)).toBe(`![](/api/files/${picture})`);
  });

  test("at most OCR_MAX_PICTURES pictures are read, in order; another user's file is not read", async () => {
    const ids = [await storedPicture("First picture"), await storedPicture("Second picture"), await storedPicture("Third picture")];
    const [other] = await db.insert(users).values({ username: "bo", usernameKey: "bo", passwordHash: "x", createdAt: 0 }).returning();
    const [theirs] = await db.insert(files).values({ userId: other!.id, sha256: "f".repeat(64), mime: "image/png", size: 1, createdAt: 0 }).returning();
    const note = await createNote({ ctx: { db, userId }, input: { title: "t", content: `![](/api/files/${theirs!.id}) ${ids.map((id) => `![](/api/files/${id})`).join(" ")}`, tags: [] } });
    const { run, asked } = runWith({ maxPictures: 3 });
    expect(await readNotePictures(run, { userId, noteId: note.id })).toBe("written");
    expect(asked).toHaveLength(2);
    const content = await contentOf(note.id);
    expect(content).toContain(`[picture 2](/api/files/${ids[0]}) First picture\n\n[picture 3](/api/files/${ids[1]}) Second picture`);
    expect(content).not.toContain("Third");
    expect(await hasPicturesToRead(db, userId, note.id, 3)).toBe(false);
  });

  test("a note without stored pictures costs a write nothing but one read", async () => {
    const note = await createNote({ ctx: { db, userId }, input: { title: "t", content: "[original](/api/files/1) and text", tags: [] } });
    expect(await hasPicturesToRead(db, userId, note.id, 30)).toBe(false);
    expect(await readNotePictures(runWith().run, { userId, noteId: note.id })).toBe("unchanged");
    expect(await readNotePictures(runWith().run, { userId, noteId: 999_999 })).toBe("gone");
  });

  test("the daily sweep forgets what was read in pictures no one stores any more", async () => {
    const picture = await storedPicture("Soon forgotten");
    const note = await createNote({ ctx: { db, userId }, input: { title: "t", content: `![](/api/files/${picture})`, tags: [] } });
    await readNotePictures(runWith().run, { userId, noteId: note.id });
    const [file] = await db.select().from(files).where(eq(files.id, picture));
    expect((await keptTexts(db, [file!.sha256])).size).toBe(1);
    const before = (await db.select().from(ocrTexts)).length;
    await db.delete(files).where(eq(files.id, picture));
    expect(await forgetUnstoredTexts(db)).toBe(1);
    expect((await keptTexts(db, [file!.sha256])).size).toBe(0);
    expect((await db.select().from(ocrTexts)).length).toBe(before - 1);
  });
});
