import { encodeBase32LowerCaseNoPadding, encodeHexLowerCase } from "@oslojs/encoding";
import { sha256 } from "@oslojs/crypto/sha2";
import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "../../db/client";
import { recoveryCodes } from "../../db/schema";

const CODE_COUNT = 10;

/** 10 codes of 50 random bits, shown once as `xxxxx-xxxxx`; enough behind second-factor throttling. */
export function generateRecoveryCodes(): string[] {
  return Array.from({ length: CODE_COUNT }, () => {
    const raw = encodeBase32LowerCaseNoPadding(crypto.getRandomValues(new Uint8Array(7))).slice(0, 10);
    return `${raw.slice(0, 5)}-${raw.slice(5)}`;
  });
}

export function hashRecoveryCode(code: string): string {
  const normalised = code.toLowerCase().replace(/[\s-]/g, "");
  return encodeHexLowerCase(sha256(new TextEncoder().encode(normalised)));
}

/** Replaces all of a user's codes: regenerating revokes the old ones. */
export async function replaceRecoveryCodes(db: Database, userId: number, codes: string[]): Promise<void> {
  const removeOld = db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
  if (codes.length === 0) {
    await removeOld;
    return;
  }
  await db.batch([removeOld, db.insert(recoveryCodes).values(codes.map((code) => ({ userId, codeHash: hashRecoveryCode(code) })))]);
}

/** Marks an unused matching code used; true when one was consumed. */
export async function consumeRecoveryCode(db: Database, userId: number, code: string, now = Date.now()): Promise<boolean> {
  const used = await db
    .update(recoveryCodes)
    .set({ usedAt: now })
    .where(and(eq(recoveryCodes.userId, userId), eq(recoveryCodes.codeHash, hashRecoveryCode(code)), isNull(recoveryCodes.usedAt)))
    .returning({ id: recoveryCodes.id });
  return used.length > 0;
}
