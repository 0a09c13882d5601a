import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import os from "node:os";
import type { NotesDatabase } from "../../../src/db/client";
import { recoveryCodes, users } from "../../../src/db/schema";
import {
  consumeRecoveryCode,
  generateRecoveryCodes,
  hashRecoveryCode,
  legacyRecoveryCodeHash,
  replaceRecoveryCodes,
} from "../../../src/modules/auth/recovery-codes";
import { createSecretBox, type SecretBox } from "../../../src/modules/auth/secret-box";
import { openTemporaryNotesDatabase, type TemporaryNotesDatabase } from "../../support/notes-database";
import { sha256Hex } from "../../support/sha256";

const box = (secretKey: string) => createSecretBox({ secretKey, dataDir: os.tmpdir() });

describe("generating recovery codes", () => {
  test("gives 10 distinct codes shaped xxxxx-xxxxx in lower-case base32", () => {
    const codes = generateRecoveryCodes();
    expect(codes.length).toBe(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
  });

  test("differs on every call", () => {
    const all = Array.from({ length: 20 }, generateRecoveryCodes).flat();
    expect(new Set(all).size).toBe(all.length);
  });
});

describe("hashing recovery codes", () => {
  let secretBox: SecretBox;
  beforeAll(async () => {
    secretBox = await box("a server key of at least thirty-two characters");
  });

  test("is an HMAC-SHA-256 under the server's key, not the bare SHA-256 of the code", async () => {
    const stored = await hashRecoveryCode(secretBox, "abcde-fghij");
    expect(stored).toBe(`hmac:${await secretBox.keyedHash("abcdefghij")}`);
    expect(stored).not.toContain(sha256Hex("abcdefghij"));
    expect(stored).not.toContain(sha256Hex("abcde-fghij"));
    expect(stored).not.toContain("abcde");
  });

  test("another server key gives another hash, so the database alone cannot be searched", async () => {
    const other = await box("another server key of at least thirty-two chars");
    expect(await hashRecoveryCode(other, "abcde-fghij")).not.toBe(await hashRecoveryCode(secretBox, "abcde-fghij"));
  });

  test.each([["ABCDE-FGHIJ"], ["abcdefghij"], ["ABCDEFGHIJ"], [" abcde fghij "], ["ab-cde-fgh-ij"], ["abcde\t-fghij"]])(
    "normalises %p to the same hash as abcde-fghij",
    async (typed) => {
      expect(await hashRecoveryCode(secretBox, typed)).toBe(await hashRecoveryCode(secretBox, "abcde-fghij"));
    },
  );

  test("different codes give different hashes", async () => {
    expect(await hashRecoveryCode(secretBox, "abcde-fghij")).not.toBe(await hashRecoveryCode(secretBox, "abcde-fghik"));
  });

  test("the legacy hash, still matched, is the SHA-256 hex of the code without its dash", () => {
    expect(legacyRecoveryCodeHash("ABCDE-FGHIJ")).toBe(sha256Hex("abcdefghij"));
  });
});

describe("storing and consuming recovery codes", () => {
  let database: TemporaryNotesDatabase;
  let ctx: { db: NotesDatabase["db"]; secretBox: SecretBox };
  let nextUser = 0;

  beforeAll(async () => {
    database = await openTemporaryNotesDatabase();
    ctx = { db: database.db, secretBox: await box("a server key of at least thirty-two characters") };
  });
  afterAll(() => database.remove());

  async function newUserId(): Promise<number> {
    const name = `u${++nextUser}`;
    const [row] = await database.db
      .insert(users)
      .values({ username: name, usernameKey: name, passwordHash: "x", createdAt: Date.now() })
      .returning({ id: users.id });
    return row!.id;
  }

  test("a stored code is consumed once", async () => {
    const userId = await newUserId();
    const codes = generateRecoveryCodes();
    await replaceRecoveryCodes(ctx, userId, codes);
    expect(await consumeRecoveryCode(ctx, userId, codes[0]!)).toBe(true);
    expect(await consumeRecoveryCode(ctx, userId, codes[0]!)).toBe(false);
    expect(await consumeRecoveryCode(ctx, userId, codes[1]!)).toBe(true);
  });

  test("a code is accepted in upper case and without its dash", async () => {
    const userId = await newUserId();
    const codes = generateRecoveryCodes();
    await replaceRecoveryCodes(ctx, userId, codes);
    expect(await consumeRecoveryCode(ctx, userId, codes[2]!.toUpperCase().replace("-", ""))).toBe(true);
    expect(await consumeRecoveryCode(ctx, userId, codes[2]!)).toBe(false);
  });

  test("only hashes are stored, with the time of use", async () => {
    const userId = await newUserId();
    const codes = generateRecoveryCodes();
    await replaceRecoveryCodes(ctx, userId, codes);
    await consumeRecoveryCode(ctx, userId, codes[0]!, 1234);
    const rows = await database.client.execute({ sql: "select code_hash, used_at from recovery_codes where user_id = ?", args: [userId] });
    const expected = await Promise.all(codes.map((code) => hashRecoveryCode(ctx.secretBox, code)));
    expect(rows.rows.map((row) => row.code_hash).sort()).toEqual(expected.sort());
    expect(rows.rows.filter((row) => row.used_at !== null).map((row) => Number(row.used_at))).toEqual([1234]);
  });

  test("another user's code is refused", async () => {
    const owner = await newUserId();
    const other = await newUserId();
    const codes = generateRecoveryCodes();
    await replaceRecoveryCodes(ctx, owner, codes);
    expect(await consumeRecoveryCode(ctx, other, codes[0]!)).toBe(false);
    expect(await consumeRecoveryCode(ctx, owner, codes[0]!)).toBe(true);
  });

  test("regenerating revokes all the old codes", async () => {
    const userId = await newUserId();
    const old = generateRecoveryCodes();
    await replaceRecoveryCodes(ctx, userId, old);
    const fresh = generateRecoveryCodes();
    await replaceRecoveryCodes(ctx, userId, fresh);
    for (const code of old) expect(await consumeRecoveryCode(ctx, userId, code)).toBe(false);
    expect(await consumeRecoveryCode(ctx, userId, fresh[0]!)).toBe(true);
  });

  // Fails until fixed: replaceRecoveryCodes builds `insert ... values([])`, which drizzle rejects, so
  // disabling TOTP (which calls it with []) is a 500.
  test("replacing with no codes removes them all", async () => {
    const userId = await newUserId();
    const codes = generateRecoveryCodes();
    await replaceRecoveryCodes(ctx, userId, codes);
    await replaceRecoveryCodes(ctx, userId, []);
    const left = await database.client.execute({ sql: "select count(*) as n from recovery_codes where user_id = ?", args: [userId] });
    expect(Number(left.rows[0]!.n)).toBe(0);
    expect(await consumeRecoveryCode(ctx, userId, codes[0]!)).toBe(false);
  });

  test("a code is never consumed by a wrong one", async () => {
    const userId = await newUserId();
    await replaceRecoveryCodes(ctx, userId, generateRecoveryCodes());
    expect(await consumeRecoveryCode(ctx, userId, "aaaaa-aaaaa")).toBe(false);
    const used = await database.db.select().from(recoveryCodes);
    expect(used.filter((row) => row.userId === userId && row.usedAt !== null)).toEqual([]);
  });

  test("a code stored as a bare SHA-256, before keyed hashes, still works once", async () => {
    const userId = await newUserId();
    const [code, other] = generateRecoveryCodes();
    await database.db.insert(recoveryCodes).values([code!, other!].map((c) => ({ userId, codeHash: legacyRecoveryCodeHash(c) })));
    expect(await consumeRecoveryCode(ctx, userId, code!.toUpperCase())).toBe(true);
    expect(await consumeRecoveryCode(ctx, userId, code!)).toBe(false);
    expect(await consumeRecoveryCode(ctx, userId, other!)).toBe(true);
  });

  test("a code hashed under another server key is refused", async () => {
    const userId = await newUserId();
    const codes = generateRecoveryCodes();
    await replaceRecoveryCodes({ db: database.db, secretBox: await box("another server key of at least thirty-two chars") }, userId, codes);
    expect(await consumeRecoveryCode(ctx, userId, codes[0]!)).toBe(false);
  });
});
