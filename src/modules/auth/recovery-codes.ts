import { encodeBase32LowerCaseNoPadding, encodeHexLowerCase } from "@oslojs/encoding";
import { sha256 } from "@oslojs/crypto/sha2";
import { and, eq, inArray, isNull } from "drizzle-orm";
import type { Database } from "../../db/client";
import { recoveryCodes } from "../../db/schema";
import type { SecretBox } from "./secret-box";

const CODE_COUNT = 10;
/** Marks a keyed hash, telling it apart from the bare SHA-256 that codes stored before it have. */
const KEYED = "hmac:";

type CodeContext = { db: Database; secretBox: SecretBox };

/** 10 codes of 50 random bits, shown once as `xxxxx-xxxxx`; enough behind second-factor throttling. */
export function generateRecoveryCodes(): string[] {
  return Array.from({ length: CODE_COUNT }, () => {
    const raw = encodeBase32LowerCaseNoPadding(crypto.getRandomValues(new Uint8Array(7))).slice(0, 10);
    return `${raw.slice(0, 5)}-${raw.slice(5)}`;
  });
}

const normalise = (code: string) => code.toLowerCase().replace(/[\s-]/g, "");

/** What is stored: an HMAC under the server's key, so a stolen database alone cannot be searched for the codes. */
export async function hashRecoveryCode(secretBox: SecretBox, code: string): Promise<string> {
  return KEYED + (await secretBox.keyedHash(normalise(code)));
}

/** How codes were stored before the keyed hash; still matched so that codes users already hold keep working. */
export function legacyRecoveryCodeHash(code: string): string {
  return encodeHexLowerCase(sha256(new TextEncoder().encode(normalise(code))));
}

/** Replaces all of a user's codes: regenerating revokes the old ones. */
export async function replaceRecoveryCodes(ctx: CodeContext, userId: number, codes: string[]): Promise<void> {
  const removeOld = ctx.db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
  if (codes.length === 0) {
    await removeOld;
    return;
  }
  const hashes = await Promise.all(codes.map((code) => hashRecoveryCode(ctx.secretBox, code)));
  await ctx.db.batch([removeOld, ctx.db.insert(recoveryCodes).values(hashes.map((codeHash) => ({ userId, codeHash })))]);
}

/**
 * Marks an unused matching code used; true when one was consumed. A code stored the old way (bare SHA-256)
 * matches too and is consumed like any other, so old codes migrate on use: each works once, as codes do, and
 * cannot be re-hashed ahead of time since only their hash is known. Regenerating codes replaces the rest.
 */
export async function consumeRecoveryCode(ctx: CodeContext, userId: number, code: string, now = Date.now()): Promise<boolean> {
  const candidates = [await hashRecoveryCode(ctx.secretBox, code), legacyRecoveryCodeHash(code)];
  const used = await ctx.db
    .update(recoveryCodes)
    .set({ usedAt: now })
    .where(and(eq(recoveryCodes.userId, userId), inArray(recoveryCodes.codeHash, candidates), isNull(recoveryCodes.usedAt)))
    .returning({ id: recoveryCodes.id });
  return used.length > 0;
}
