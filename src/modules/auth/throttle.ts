import { inArray, eq, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { throttles } from "../../db/schema";
import { TooManyRequestsError } from "../errors";

/**
 * Failure throttling kept in libSQL so every API process sees the same counters. After
 * `freeFailures` failures inside `windowMs`, the key is blocked, each further failure doubling the
 * block up to `maxBlockMs` (Lucia's throttler shape; the Copenhagen Book's per-IP numbers).
 */
export interface ThrottlePolicy {
  freeFailures: number;
  windowMs: number;
  baseBlockMs: number;
  maxBlockMs: number;
}

const MINUTE = 60_000;
export const LOGIN_PER_USERNAME: ThrottlePolicy = { freeFailures: 5, windowMs: 15 * MINUTE, baseBlockMs: 30_000, maxBlockMs: 15 * MINUTE };
export const LOGIN_PER_ADDRESS: ThrottlePolicy = { freeFailures: 20, windowMs: 15 * MINUTE, baseBlockMs: MINUTE, maxBlockMs: 15 * MINUTE };
export const SECOND_FACTOR_PER_USER: ThrottlePolicy = { freeFailures: 5, windowMs: 30 * MINUTE, baseBlockMs: 15 * MINUTE, maxBlockMs: 60 * MINUTE };

export const throttleKeys = {
  loginUsername: (username: string) => `login:user:${username.toLowerCase()}`,
  loginAddress: (address: string) => `login:addr:${address}`,
  secondFactor: (userId: number) => `2fa:user:${userId}`,
};

export async function assertNotThrottled(db: Database, keys: string[], message: string, now = Date.now()): Promise<void> {
  const rows = await db.select({ blockedUntil: throttles.blockedUntil }).from(throttles).where(inArray(throttles.key, keys));
  const blockedUntil = Math.max(0, ...rows.map((row) => row.blockedUntil));
  if (blockedUntil > now) throw new TooManyRequestsError(message, Math.ceil((blockedUntil - now) / 1000));
}

export async function recordFailure(db: Database, key: string, policy: ThrottlePolicy, now = Date.now()): Promise<void> {
  const windowOver = sql`${throttles.windowStartedAt} + ${policy.windowMs} < ${now} and ${throttles.blockedUntil} < ${now}`;
  const [row] = await db
    .insert(throttles)
    .values({ key, failures: 1, windowStartedAt: now, blockedUntil: 0 })
    .onConflictDoUpdate({
      target: throttles.key,
      set: {
        failures: sql`case when ${windowOver} then 1 else ${throttles.failures} + 1 end`,
        windowStartedAt: sql`case when ${windowOver} then ${now} else ${throttles.windowStartedAt} end`,
      },
    })
    .returning({ failures: throttles.failures });
  const failures = row?.failures ?? 1;
  if (failures >= policy.freeFailures) {
    const block = Math.min(policy.baseBlockMs * 2 ** (failures - policy.freeFailures), policy.maxBlockMs);
    await db.update(throttles).set({ blockedUntil: now + block }).where(eq(throttles.key, key));
  }
}

export async function clearFailures(db: Database, key: string): Promise<void> {
  await db.delete(throttles).where(eq(throttles.key, key));
}
