// A transcript and its pieces are kept only while their task exists: a task deleted with its account
// while the speech-to-text server was still answering leaves nothing of the account's media behind.
import { afterAll, expect, test } from "bun:test";
import { importTasks, users } from "../../../src/db/schema";
import { findTranscript, keepTranscript, savePiece, donePieces } from "../../../src/modules/transcripts/transcript-store";
import { openTemporaryNotesDatabase } from "../../support/notes-database";

const database = await openTemporaryNotesDatabase();
afterAll(() => database.remove());
const { db } = database;

const [user] = await db.insert(users).values({ username: "ada", usernameKey: "ada", passwordHash: "x", createdAt: 0 }).returning();
const [task] = await db
  .insert(importTasks)
  .values({ userId: user!.id, platform: "web", status: "running", message: "", createdAt: 0, updatedAt: 0 })
  .returning();
const piece = { start: 0, end: 10, from: 0, segments: [{ start: 0, end: 10, text: "hello" }], text: "", language: "en" };
const transcript = { source: "speech-to-text (m, en), machine-generated", segments: [{ start: 0, end: 10, text: "hello" }], text: "", duration: 10, truncatedAt: null };

test("pieces and the finished transcript are kept for a task that exists, with what they cost it", async () => {
  await savePiece(db, { mediaKey: `pasted:${user!.id}:kept`, plan: "p", index: 0, taskId: task!.id }, piece, { seconds: 10, requests: 1 });
  expect((await donePieces(db, `pasted:${user!.id}:kept`, "p")).size).toBe(1);
  await keepTranscript(db, `pasted:${user!.id}:kept`, "p", transcript, task!.id);
  expect(await findTranscript(db, `pasted:${user!.id}:kept`)).toMatchObject({ duration: 10, segments: [{ start: 0, end: 10, text: "hello" }] });
  expect((await donePieces(db, `pasted:${user!.id}:kept`, "p")).size).toBe(0);
});

test("for a task that is gone (its account deleted), nothing is kept", async () => {
  const goneTask = task!.id + 1000;
  await savePiece(db, { mediaKey: `pasted:${user!.id}:gone`, plan: "p", index: 0, taskId: goneTask }, piece, { seconds: 10, requests: 1 });
  expect((await donePieces(db, `pasted:${user!.id}:gone`, "p")).size).toBe(0);
  await keepTranscript(db, `pasted:${user!.id}:gone`, "p", transcript, goneTask);
  expect(await findTranscript(db, `pasted:${user!.id}:gone`)).toBeNull();
});
