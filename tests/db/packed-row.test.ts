import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import fc from "fast-check";
import { openNotesDatabase, type NotesDatabase } from "../../src/db/client";
import { packedRow } from "../../src/db/packed-row";
import { notes, sessions, users } from "../../src/db/schema";

let dir: string;
let database: NotesDatabase;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "rhizome-packed-"));
  database = await openNotesDatabase({ url: `file:${path.join(dir, "test.db")}` });
});
afterAll(() => {
  database.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("packedRow", () => {
  test("reads back what a plain select reads: text of any kind, integers and nulls", async () => {
    const { db } = database;
    const columns = {
      id: notes.id,
      title: notes.title,
      tags: notes.tags,
      createdAt: notes.createdAt,
      sourceUrl: notes.sourceUrl,
      sourcePublishedAt: notes.sourcePublishedAt,
    };
    const packed = packedRow(columns);
    const [user] = await db.insert(users).values({ username: "p", usernameKey: "p", passwordHash: "x", createdAt: 1 }).returning({ id: users.id });
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: "grapheme", maxLength: 50 }).filter((text) => !text.includes("\u0000")),
        fc.option(fc.string({ unit: "binary", maxLength: 30 }).filter((text) => !text.includes("\u0000") && !/\p{Cs}/u.test(text))),
        fc.option(fc.integer({ min: -(2 ** 52), max: 2 ** 52 })),
        async (title, sourceUrl, publishedAt) => {
          const [{ id }] = (await db
            .insert(notes)
            .values({ userId: user!.id, title, content: "", excerpt: "", tags: JSON.stringify([title]), createdAt: 1_700_000_000_123, updatedAt: 1, sourceUrl, sourcePublishedAt: publishedAt })
            .returning({ id: notes.id })) as [{ id: number }];
          const [plain] = await db.select(columns).from(notes).where(eq(notes.id, id));
          const [{ row }] = (await db.select({ row: packed.column }).from(notes).where(eq(notes.id, id))) as [{ row: string }];
          expect(packed.unpack(row)).toEqual(plain!);
        },
      ),
      { numRuns: 300 },
    );
  });

  test("a boolean column comes back a boolean", async () => {
    const { db } = database;
    const [user] = await db.insert(users).values({ username: "b", usernameKey: "b", passwordHash: "x", createdAt: 1, totpEnabled: true }).returning({ id: users.id });
    await db.insert(sessions).values({ id: "s", userId: user!.id, expiresAt: 5, pendingTotp: false, createdAt: 1 });
    const packed = packedRow({ pendingTotp: sessions.pendingTotp, totpEnabled: users.totpEnabled });
    const [{ row }] = (await db.select({ row: packed.column }).from(sessions).innerJoin(users, eq(users.id, sessions.userId))) as [{ row: string }];
    expect(packed.unpack(row)).toEqual({ pendingTotp: false, totpEnabled: true });
  });
});
