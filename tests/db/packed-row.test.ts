import { describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import fc from "fast-check";
import { packedRow } from "../../src/db/packed-row";
import { notes, sessions, users } from "../../src/db/schema";
import { notesDatabaseForThisFile } from "../support/notes-database";

const database = await notesDatabaseForThisFile();

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
